// Reading the claims out of a closing message: a structured report when there is one (a fenced
// JSON block with `commandsRun`, `changedFiles`, `testsAddedOrUpdated`, as pi-subagents'
// acceptance-report), and the prose: checks that pass, commands that ran, files created,
// changed or deleted, commits and pushes, work implemented or done, ticked checklist items.
// Sentences that negate, hedge or plan ("not run", "next I'll", "if …") claim nothing. Pure.
import { type CheckKind, checkKind } from "./facts.ts";
import { filesIn, looksLikeFile, MAX_FILES } from "./file-names.ts";
import { type GatedPattern, gated, matches } from "./gated-pattern.ts";

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
const NOT_A_CLAIM = gated(
	new RegExp(
		String.raw`\b(not|\w*n't|never|no longer|unable|without|skip(?:ped|ping)?|pending|todo` +
			String.raw`|remaining|next|will|would|should|could|may|might|if|once|until|unless` +
			String.raw`|plan(?:ned)?|need(?:s|ed)? to|to be|yet|whether|already (?:existed` +
			String.raw`|present|implemented|there|in place|done)|pre-?existed|were already` +
			String.raw`|was already|no (?:edits?|changes?|files?|code|modifications?))\b|\?$`,
		"i",
	),
	"not|n't|never|no |unable|without|skip|pending|todo|remaining|next|will|would|should|could|may|might|if|once|" +
		"until|unless|plan|need|to be|yet|whether|already|existed|?",
);
const PASS_WORDS = gated(
	new RegExp(
		String.raw`\b(pass(?:es|ed|ing)?|green|succeed(?:s|ed)?|success(?:ful(?:ly)?)?|ok|clean|works?|completed?)\b` +
			"|✅|✓" +
			String.raw`|->\s*PASS|^\W*(?:no|zero|0) (?:\w+ )?(?:errors?|failures?)\b`,
		"i",
	),
	"pass|green|succeed|success|ok|clean|work|complete|✅|✓|error|failure",
);
const CHECK_WORDS: Array<[CheckKind, RegExp]> = [
	["test", /\b(tests?|specs?|test suite|vitest|jest|pytest|mocha|doctests?)\b/i],
	["typecheck", /\b(tsc|type ?-?check(?:s|ing|er)?|typescript|types?|mypy|pyright)\b/i],
	["lint", /\b(lint(?:er|ing)?|eslint|ruff|clippy|biome)\b/i],
	["build", /\b(build|compil(?:e|es|ed|ation))\b/i],
];
const FILE_VERB = gated(
	new RegExp(
		String.raw`^(?:[-*+]\s+)?(?:i(?:'ve| have)?\s+)?(?:\w+\s+)?(created|wrote|written` +
			String.raw`|added|updated|modified|changed|edited|deleted|removed|renamed)\b`,
		"i",
	),
	"created|wrote|written|added|updated|modified|changed|edited|deleted|removed|renamed",
);
const FIRST_PERSON_DONE = gated(
	new RegExp(
		String.raw`^(?:[-*+]\s+)?(?:i(?:'ve| have)?\s+)?(implemented|fixed|added|created` +
			String.raw`|refactored|wrote|built|completed|finished)\s+\w`,
		"i",
	),
	"implemented|fixed|added|created|refactored|wrote|built|completed|finished",
);
const COMMITTED = gated(
	new RegExp(
		String.raw`\b(?:committed (?:(?:the|all|my|these|both|your|this)\s+)?(?:changes?` +
			String.raw`|work|fix(?:es)?|files?|it|them|as|in|to|on)\b|commits? (?:landed` +
			String.raw`|created|made)\b|commit(?:ted)? (?:as )?\x60?[0-9a-f]{7,40}\b|(?:changes` +
			String.raw`|work|everything|it|fix) (?:is|are|was|were|has been` +
			String.raw`|have been) committed\b)`,
		"i",
	),
	"commit",
);
/** A message that reviews, plans or reports on work rather than claiming to have done it. */
const REVIEW_FRAMING = gated(
	/^\s*(?:#+\s*)?(?:code\s+)?(?:re-?)?review(?:ed)?\b|^\s*review (?:complete|done|finished)\b/im,
	"review",
);
/** A plan, design or proposal (its title says so): it describes work to do, whatever its words. */
const PLAN_TITLE = /\b(?:plan|design|proposal|roadmap|rfc|spec(?:ification)?|outline|strategy|approach)\b/i;
const PLAN_INTRO = gated(
	/^\s*(?:here(?:'s| is) (?:the|my|a|an) (?:\w+ ){0,3}plan\b|## (?:implementation )?plan\b)/im,
	"plan",
);

/** Headings and phrases that only a plan has: files it will change, changes it proposes. */
const PLAN_BODY = gated(
	new RegExp(
		String.raw`^#{1,4}\s+(?:proposed changes|implementation (?:plan|steps)|files to (?:modify|change|create))\b` +
			String.raw`|\bfiles to (?:modify|change|create|edit):`,
		"im",
	),
	"proposed changes|implementation|files to",
);

function isPlan(prose: string, lower: string): boolean {
	const title = /^\s*#{1,3}\s+(.+)$/m.exec(prose.slice(0, 2000));
	const head = prose.slice(0, 4000);
	return (
		(title !== null && PLAN_TITLE.test(title[1] as string)) ||
		matches(PLAN_INTRO, head, head.toLowerCase()) ||
		matches(PLAN_BODY, prose, lower)
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

const DONE = gated(
	new RegExp(
		String.raw`\b(all done|(?:is|are|now) (?:fully )?(?:operational|functional|working|ready(?: to use| for use)?)\b` +
			String.raw`|all set\b|production[- ]ready|(?:is|are|now) (?:complete|done|finished)` +
			String.raw`|task (?:is )?complete|work (?:is )?(?:complete|done)|complete[d!]?\s*$` +
			"|—" +
			String.raw`\s*done\b|\bdone!|\bDONE\b|^(?:\W*\s*)?(?:\w+\s+){0,4}complete!)`,
		"im",
	),
	"done|operational|functional|working|ready|all set|complete|finished",
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

const PRE_EXISTING = gated(
	new RegExp(
		String.raw`\bpre-?existing\b|\bunrelated (?:test )?(?:failures?|errors?)\b|\balready (?:failing|broken)\b|` +
			String.raw`\bfalse positives?\b`,
		"i",
	),
	"existing|unrelated|already|false positive",
);

/** "Changed files:" and the like: a list of files follows, one per line. */
const FILES_LIST = gated(/^\W*(changed|modified|created|new|updated|edited|touched)\s+files?\b.*:\s*$/i, "file");
const PUSHED = gated(/\b(pushed)\b/i, "pushed");

/** The gated patterns, for the test that checks their words. */
export const CLAIM_GATES: Record<string, GatedPattern> = {
	FILES_LIST,
	PUSHED,
	NOT_A_CLAIM,
	PASS_WORDS,
	FILE_VERB,
	FIRST_PERSON_DONE,
	COMMITTED,
	DONE,
	PRE_EXISTING,
	REVIEW_FRAMING,
	PLAN_INTRO,
	PLAN_BODY,
};

/** Every claim a closing message makes. */
export function extractClaims(text: string): Claims {
	const { prose, report } = splitReport(text);
	const lowerProse = prose.toLowerCase();
	const claims: Claim[] = [];
	// A plan claims nothing about work done: only what it says it will do.
	if (isPlan(prose, lowerProse)) return { claims: [], review: true };
	let review = matches(REVIEW_FRAMING, prose, lowerProse);
	if (report) {
		fromReport(report, claims);
		// The report's own account of what satisfied the task: "Implemented …" or "Reviewed …".
		for (const c of Array.isArray(report.criteriaSatisfied) ? report.criteriaSatisfied.slice(0, 20) : []) {
			const evidence = c && typeof c === "object" && typeof c.evidence === "string" ? c.evidence.trim() : "";
			const lower = evidence.toLowerCase();
			if (matches(REVIEW_FRAMING, evidence, lower)) review = true;
			else if (matches(FIRST_PERSON_DONE, evidence, lower))
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
		const lower = s.toLowerCase();
		if (matches(FILES_LIST, s, lower)) {
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
		const negated = matches(NOT_A_CLAIM, s, lower);
		if (matches(PRE_EXISTING, s, lower)) claims.push({ kind: "pre-existing", quote: quote(s), source: "text" });
		if (negated) continue;
		const ticked = /^\s*[-*]\s*\[[xX✓]\]\s*(.+)$/.exec(s);
		if (ticked) {
			claims.push({ kind: "checklist", quote: quote(ticked[1]), files: filesIn(ticked[1]), source: "text" });
			continue;
		}
		checkClaims(s, lower, claims);
		if (matches(COMMITTED, s, lower)) claims.push({ kind: "committed", quote: quote(s), source: "text" });
		if (matches(PUSHED, s, lower)) claims.push({ kind: "pushed", quote: quote(s), source: "text" });
		if (matches(FILE_VERB, s, lower)) {
			const files = filesIn(s);
			if (files.length) claims.push({ kind: "files-changed", quote: quote(s), files, source: "text" });
		}
		if (matches(FIRST_PERSON_DONE, s, lower) && !s.startsWith("#"))
			claims.push({ kind: "implemented", quote: quote(s), source: "text" });
		else if (matches(DONE, s, lower)) claims.push({ kind: "done", quote: quote(s), source: "text" });
	}
	endList();
	return { claims, review };
}

/** "tests pass", "build succeeded", "`npm test` -> PASS": one claim per check named. */
function checkClaims(s: string, lower: string, claims: Claim[]): void {
	if (/[{}]|=>|\);/.test(s.replace(/`[^`]*`/g, ""))) return; // a line of code, not a sentence
	if (
		!matches(PASS_WORDS, s, lower) ||
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
