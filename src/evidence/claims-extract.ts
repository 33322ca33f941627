// Reading the claims out of a closing message: a structured report when there is one (a fenced
// JSON block with `commandsRun`, `changedFiles`, `testsAddedOrUpdated`, as pi-subagents'
// acceptance-report), and the prose: checks that pass, commands that ran, files created,
// changed or deleted, commits and pushes, work implemented or done, ticked checklist items.
// Sentences that negate, hedge or plan ("not run", "next I'll", "if …") claim nothing. Pure.
import { type CheckKind, checkKind } from "./facts.ts";

export type ClaimKind =
	| "check-passed"
	| "command-ran"
	| "files-changed"
	| "committed"
	| "pushed"
	| "implemented"
	| "done"
	| "checklist"
	| "pre-existing";

export interface Claim {
	kind: ClaimKind;
	/** The words that make the claim, short. */
	quote: string;
	check?: CheckKind;
	command?: string;
	files?: string[];
	source: "report" | "text";
}

const MAX_QUOTE = 120;
const MAX_FILES = 40;

/** Fenced blocks whose JSON carries a report's fields. */
const FENCE = /```([\w-]*)[^\n]*\n([\s\S]*?)```/g;

interface Report {
	commandsRun?: Array<{ command?: unknown; result?: unknown; summary?: unknown }>;
	changedFiles?: unknown[];
	criteriaSatisfied?: Array<{ evidence?: unknown }>;
}

export interface Claims {
	claims: Claim[];
	/** The message reviews, plans or reports on work (its own words say so), rather than claiming to have done it. */
	review: boolean;
}

export function splitReport(text: string): { prose: string; report?: Report } {
	let report: Report | undefined;
	const prose = text.replace(FENCE, (whole, _tag: string, body: string) => {
		if (report || !/"(commandsRun|changedFiles)"/.test(body) || body.length > 200_000) return whole;
		try {
			const value = JSON.parse(body) as unknown;
			if (value && typeof value === "object" && !Array.isArray(value)) {
				report = value as Report;
				return "\n";
			}
		} catch {
			// not JSON after all: it stays prose
		}
		return whole;
	});
	return { prose, report };
}

/** A sentence that negates, hedges, plans or describes the future claims nothing. */
const NOT_A_CLAIM = new RegExp(
	String.raw`\b(not|\w*n't|never|no longer|unable|without|skip(?:ped|ping)?|pending|todo` +
		String.raw`|remaining|next|will|would|should|could|may|might|if|once|until|unless` +
		String.raw`|plan(?:ned)?|need(?:s|ed)? to|to be|yet|whether|already (?:existed` +
		String.raw`|present|implemented|there|in place|done)|pre-?existed|were already` +
		String.raw`|was already|no (?:edits?|changes?|files?|code|modifications?))\b|\?$`,
	"i",
);
const PASS_WORDS = new RegExp(
	String.raw`\b(pass(?:es|ed|ing)?|green|succeed(?:s|ed)?|success(?:ful(?:ly)?)?|ok|clean|works?|completed?)\b` +
		"|✅|✓" +
		String.raw`|->\s*PASS|^\W*(?:no|zero|0) (?:\w+ )?(?:errors?|failures?)\b`,
	"i",
);
const CHECK_WORDS: Array<[CheckKind, RegExp]> = [
	["test", /\b(tests?|specs?|test suite|vitest|jest|pytest|mocha|doctests?)\b/i],
	["typecheck", /\b(tsc|type ?-?check(?:s|ing|er)?|typescript|types?|mypy|pyright)\b/i],
	["lint", /\b(lint(?:er|ing)?|eslint|ruff|clippy|biome)\b/i],
	["build", /\b(build|compil(?:e|es|ed|ation))\b/i],
];
const FILE_TOKEN = /`([^`\s]{2,200})`|(?<![\w/.-])((?:[\w.-]+\/)*[\w-]+\.[A-Za-z][\w]{0,6})(?![\w/])/g;
const FILE_VERB = new RegExp(
	String.raw`^(?:[-*+]\s+)?(?:i(?:'ve| have)?\s+)?(?:\w+\s+)?(created|wrote|written` +
		String.raw`|added|updated|modified|changed|edited|deleted|removed|renamed)\b`,
	"i",
);
const FIRST_PERSON_DONE = new RegExp(
	String.raw`^(?:[-*+]\s+)?(?:i(?:'ve| have)?\s+)?(implemented|fixed|added|created` +
		String.raw`|refactored|wrote|built|completed|finished)\s+\w`,
	"i",
);
const COMMITTED = new RegExp(
	String.raw`\b(?:committed (?:(?:the|all|my|these|both|your|this)\s+)?(?:changes?` +
		String.raw`|work|fix(?:es)?|files?|it|them|as|in|to|on)\b|commits? (?:landed` +
		String.raw`|created|made)\b|commit(?:ted)? (?:as )?\x60?[0-9a-f]{7,40}\b|(?:changes` +
		String.raw`|work|everything|it|fix) (?:is|are|was|were|has been` +
		String.raw`|have been) committed\b)`,
	"i",
);
/** A message that reviews, plans or reports on work rather than claiming to have done it. */
const REVIEW_FRAMING = /^\s*(?:#+\s*)?(?:code\s+)?(?:re-?)?review(?:ed)?\b|^\s*review (?:complete|done|finished)\b/im;
/** A plan, design or proposal (its title says so): it describes work to do, whatever its words. */
const PLAN_TITLE = /\b(?:plan|design|proposal|roadmap|rfc|spec(?:ification)?|outline|strategy|approach)\b/i;
const PLAN_INTRO = /^\s*(?:here(?:'s| is) (?:the|my|a|an) (?:\w+ ){0,3}plan\b|## (?:implementation )?plan\b)/im;

/** Headings and phrases that only a plan has: files it will change, changes it proposes. */
const PLAN_BODY = new RegExp(
	String.raw`^#{1,4}\s+(?:proposed changes|implementation (?:plan|steps)|files to (?:modify|change|create))\b` +
		String.raw`|\bfiles to (?:modify|change|create|edit):`,
	"im",
);

function isPlan(prose: string): boolean {
	const title = /^\s*#{1,3}\s+(.+)$/m.exec(prose.slice(0, 2000));
	return (
		(title !== null && PLAN_TITLE.test(title[1] as string)) ||
		PLAN_INTRO.test(prose.slice(0, 4000)) ||
		PLAN_BODY.test(prose)
	);
}

/** A request for a plan, a design or a read-only look: what the answer says about checks is what it plans. */
const PLAN_REQUEST = new RegExp(
	String.raw`\b(?:return|write|give|produce|draft|make|prepare|propose) (?:me )?(?:a|an|the) (?:\w+ ){0,3}(?:plan|` +
		String.raw`design|proposal)\b|\bplan (?:what|how) to\b|\bdo not (?:write|implement|edit|change|modify)\b|` +
		String.raw`\bdon't (?:write|implement|edit|change|modify)\b|\bread-only\b`,
	"i",
);

export function asksForPlan(prompt: string): boolean {
	return PLAN_REQUEST.test(prompt);
}

/** A table row that reports a command's result: `| \`git status --short\` | passed |`. */
const ROW_RESULT = /^(?:✅|✓|☑|pass(?:ed|es)?|ok|success(?:ful)?|succeeded|clean|green|done|works?)\b|✅|✓/i;
const SHELL_START = new RegExp(
	String.raw`^(?:git|npm|pnpm|yarn|npx|bun|node|python3?|pytest|cargo|go|make|bash|sh|\.\/|curl|docker` +
		String.raw`|tsc|deno|uv|pip|ls|cat|gh|mvn|gradle|dotnet|mix|ruby|rake|composer|php)\b`,
);

function tableRowClaim(s: string): Claim | undefined {
	if (!s.startsWith("|") || /^\|[\s:|-]+\|?$/.test(s)) return undefined;
	const cells = s
		.split("|")
		.slice(1, -1)
		.map((c) => c.trim());
	if (cells.length < 2) return undefined;
	let command: string | undefined;
	let passed = false;
	for (const cell of cells) {
		const code = /^`([^`]{2,300})`$/.exec(cell)?.[1];
		if (command === undefined && code && (SHELL_START.test(code) || checkKind(code))) command = code;
		else if (ROW_RESULT.test(cell)) passed = true;
	}
	if (!command || !passed) return undefined;
	const check = checkKind(command);
	return check
		? { kind: "check-passed", quote: quote(s), check, command, source: "text" }
		: { kind: "command-ran", quote: quote(s), command, source: "text" };
}

const DONE = new RegExp(
	String.raw`\b(all done|(?:is|are|now) (?:fully )?(?:operational|functional|working|ready(?: to use| for use)?)\b` +
		String.raw`|all set\b|production[- ]ready|(?:is|are|now) (?:complete|done|finished)` +
		String.raw`|task (?:is )?complete|work (?:is )?(?:complete|done)|complete[d!]?\s*$` +
		"|—" +
		String.raw`\s*done\b|\bdone!|\bDONE\b|^(?:\W*\s*)?(?:\w+\s+){0,4}complete!)`,
	"im",
);

function sentences(prose: string): string[] {
	const out: string[] = [];
	for (const line of prose.replace(/[’‘]/g, "'").split("\n")) {
		const trimmed = line.trim();
		if (!trimmed || trimmed.startsWith("```")) continue;
		for (const s of trimmed.split(/(?<=[.!;])\s+(?=[A-Z`*])/)) if (s.trim()) out.push(s.trim());
	}
	return out;
}

function quote(text: string): string {
	const t = text.replace(/\s+/g, " ").trim();
	return t.length <= MAX_QUOTE ? t : `${t.slice(0, MAX_QUOTE - 1)}…`;
}

/** Extensions a bare name (no folder) must have to count as a file: `event.args` is code, `index.ts` a file. */
const FILE_EXTENSIONS = new Set(
	(
		"ts tsx js jsx mjs cjs mts cts json jsonc json5 md mdx txt rst yml yaml toml " +
		"ini cfg conf env lock py pyi ipynb rb go rs java kt kts scala swift c h cc cpp " +
		"hpp cs fs ex exs erl hs ml php pl lua r sql sh bash zsh fish ps1 bat html htm " +
		"css scss sass less vue svelte astro xml svg png jpg gif csv tsv proto graphql " +
		"gql tf dockerfile gradle properties"
	).split(" "),
);

function looksLikeFile(token: string): boolean {
	if (/^https?:|^\d|[*?{}<>|$()]|^\.\.?$/.test(token)) return false;
	const base = token.replace(/^.*\//, "");
	const ext = /\.([A-Za-z][\w]{0,4})$/.exec(base)?.[1]?.toLowerCase();
	if (!ext || /^\d+\.\d+/.test(base)) return false;
	return token.includes("/")
		? !/^(?:com|org|io|net|dev)$/.test(ext)
		: FILE_EXTENSIONS.has(ext) || /^\.[\w-]+$/.test(base);
}

export function filesIn(text: string): string[] {
	const out = new Set<string>();
	for (const m of text.matchAll(FILE_TOKEN)) {
		const token = (m[1] ?? m[2] ?? "").replace(/^\.\//, "").replace(/[),.:;]+$/, "");
		if (looksLikeFile(token)) out.add(token);
		if (out.size >= MAX_FILES) break;
	}
	return [...out];
}

const PRE_EXISTING = new RegExp(
	String.raw`\bpre-?existing\b|\bunrelated (?:test )?(?:failures?|errors?)\b|\balready (?:failing|broken)\b|` +
		String.raw`\bfalse positives?\b`,
	"i",
);

/** Every claim a closing message makes. */
export function extractClaims(text: string): Claims {
	const { prose, report } = splitReport(text);
	const claims: Claim[] = [];
	// A plan claims nothing about work done: only what it says it will do.
	if (isPlan(prose)) return { claims: [], review: true };
	let review = REVIEW_FRAMING.test(prose);
	if (report) {
		fromReport(report, claims);
		// The report's own account of what satisfied the task: "Implemented …" or "Reviewed …".
		for (const c of Array.isArray(report.criteriaSatisfied) ? report.criteriaSatisfied.slice(0, 20) : []) {
			const evidence = c && typeof c === "object" && typeof c.evidence === "string" ? c.evidence.trim() : "";
			if (REVIEW_FRAMING.test(evidence)) review = true;
			else if (FIRST_PERSON_DONE.test(evidence))
				claims.push({ kind: "implemented", quote: quote(evidence), source: "report" });
		}
	}
	// "Changed files:" and the like introduce a list of files, one per line: one claim for the list.
	let list: { quote: string; files: string[] } | undefined;
	const endList = () => {
		if (list?.files.length)
			claims.push({
				kind: "files-changed",
				quote: quote(list.quote),
				files: list.files.slice(0, MAX_FILES),
				source: "text",
			});
		list = undefined;
	};
	for (const s of sentences(prose)) {
		if (/^\W*(changed|modified|created|new|updated|edited|touched)\s+files?\b.*:\s*$/i.test(s)) {
			endList();
			list = { quote: s, files: [] };
			continue;
		}
		if (list) {
			const item = /^\s*(?:[-*+]|\d+\.)\s+/.test(s) ? filesIn(s.split(/\s[—–-]\s|:\s/)[0] ?? s) : [];
			if (item.length) {
				list.files.push(item[0] as string);
				continue;
			}
			endList();
		}
		const row = tableRowClaim(s);
		if (row) {
			claims.push(row);
			continue;
		}
		const negated = NOT_A_CLAIM.test(s);
		if (PRE_EXISTING.test(s)) claims.push({ kind: "pre-existing", quote: quote(s), source: "text" });
		if (negated) continue;
		const ticked = /^\s*[-*]\s*\[[xX✓]\]\s*(.+)$/.exec(s);
		if (ticked) {
			claims.push({ kind: "checklist", quote: quote(ticked[1]), files: filesIn(ticked[1]), source: "text" });
			continue;
		}
		checkClaims(s, claims);
		if (COMMITTED.test(s)) claims.push({ kind: "committed", quote: quote(s), source: "text" });
		if (/\b(pushed)\b/i.test(s)) claims.push({ kind: "pushed", quote: quote(s), source: "text" });
		if (FILE_VERB.test(s)) {
			const files = filesIn(s);
			if (files.length) claims.push({ kind: "files-changed", quote: quote(s), files, source: "text" });
		}
		if (FIRST_PERSON_DONE.test(s) && !s.startsWith("#"))
			claims.push({ kind: "implemented", quote: quote(s), source: "text" });
		else if (DONE.test(s)) claims.push({ kind: "done", quote: quote(s), source: "text" });
	}
	endList();
	return { claims, review };
}

/** "tests pass", "build succeeded", "`npm test` -> PASS": one claim per check named. */
function checkClaims(s: string, claims: Claim[]): void {
	if (/[{}]|=>|\);/.test(s.replace(/`[^`]*`/g, ""))) return; // a line of code, not a sentence
	if (
		!PASS_WORDS.test(s) ||
		/\bfail|\berror(?!s? *(?:found|: *0)\b)|\bbroken\b/i.test(
			s.replace(/\b(?:0|no|zero) (?:\w+ )?(?:failures?|failed|errors?)\b|FAIL \(0\)/gi, ""),
		)
	)
		return;
	const command = /`([^`]{3,300})`/.exec(s)?.[1];
	const kind = command ? checkKind(command) : undefined;
	if (command && kind) {
		claims.push({ kind: "check-passed", quote: quote(s), check: kind, command, source: "text" });
		return;
	}
	const plain = s.replace(/`[^`]*`/g, "");
	for (const [check, words] of CHECK_WORDS) {
		if (words.test(plain)) {
			claims.push({ kind: "check-passed", quote: quote(s), check, source: "text" });
			return;
		}
	}
}

function fromReport(report: Report, claims: Claim[]): void {
	if (Array.isArray(report.commandsRun)) {
		for (const run of report.commandsRun.slice(0, 50)) {
			if (!run || typeof run !== "object" || typeof run.command !== "string") continue;
			const command = run.command.trim();
			const kind = checkKind(command);
			const passed =
				typeof run.result === "string" &&
				/^(pass(?:ed)?|success(?:ful)?|succeeded|ok|clean|green)\b/i.test(run.result.trim());
			if (kind && passed)
				claims.push({
					kind: "check-passed",
					quote: quote(`${command}: ${run.result}`),
					check: kind,
					command,
					source: "report",
				});
			else if (passed && /\bgit\s+(commit|push)\b/.test(command))
				claims.push({
					kind: /\bpush\b/.test(command) ? "pushed" : "committed",
					quote: quote(`${command}: ${run.result}`),
					command,
					source: "report",
				});
			else if (passed)
				claims.push({ kind: "command-ran", quote: quote(`${command}: ${run.result}`), command, source: "report" });
		}
	}
	if (Array.isArray(report.changedFiles)) {
		const files = report.changedFiles
			.filter((f): f is string => typeof f === "string" && looksLikeFile(f.trim()))
			.map((f) => f.trim().replace(/^\.\//, ""));
		if (files.length)
			claims.push({
				kind: "files-changed",
				quote: quote(`changedFiles: ${files.join(", ")}`),
				files: files.slice(0, MAX_FILES),
				source: "report",
			});
	}
}
