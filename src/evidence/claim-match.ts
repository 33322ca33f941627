// Matching a claim to the tool log: which runs are the claimed check, whether two paths name
// one file, whether a closing text owns up to failures, and how a run is quoted in a verdict.
import type { Claim } from "./claims-extract.ts";
import type { CallFact } from "./facts.ts";
import type { Segment } from "./log.ts";

const WRAPPERS = new Set([
	"npx",
	"bunx",
	"pnpx",
	"exec",
	"time",
	"env",
	"nice",
	"command",
	"timeout",
	"sudo",
	"uv",
	"poetry",
	"pipenv",
]);

/** Counts of zero: "0 failed", "no errors found". (Global: replace starts each use from the start.) */
const NO_FAILURES = new RegExp(
	String.raw`\b(?:0|no|zero|without) (?:\w+ )?(?:failures?|failed|failing|errors?)\b|\bFAIL \(0\)|\bfail(?:ed|` +
		String.raw`s)?:? 0\b|\bno errors found\b`,
	"gi",
);
const DISCLOSED = new RegExp(
	String.raw`\b(fail(?:s|ed|ing|ures?)?|broken|still (?:red|errors?)|does not (?:pass|build|compile)|` +
		String.raw`doesn't (?:pass|build|compile)|errors? remain)\b`,
	"i",
);

/** Whether the closing text owns up to failures (then its pass claims are not contradicted by them). */
export function disclosesFailure(text: string): boolean {
	return DISCLOSED.test(text.replace(NO_FAILURES, ""));
}

export function basename(path: string): string {
	return path.replace(/\\/g, "/").replace(/\/+$/, "").replace(/^.*\//, "");
}

/** Whether a claimed path and a call's path name the same file (relative vs absolute, ./ prefixes). */
export function samePath(claimed: string, actual: string): boolean {
	const a = claimed.replace(/\\/g, "/").replace(/^\.\//, "");
	const b = actual.replace(/\\/g, "/").replace(/^\.\//, "");
	if (basename(a) !== basename(b)) return false;
	return a === b || b.endsWith(`/${a}`) || a.endsWith(`/${b}`) || !a.includes("/") || !b.includes("/");
}

function tokens(command: string): string[] {
	const firstStage = command.split(/\s\|\s|\s\|(?!\|)|(?<!\|)\|\s/)[0] ?? command;
	const out: string[] = [];
	for (const raw of firstStage.split(/\s+|&&|;/)) {
		const t = raw.replace(/^['"]|['"]$/g, "");
		if (!t || t.startsWith("-") || /^\d?>|^&>|^2>&1$/.test(t) || WRAPPERS.has(t)) continue;
		out.push(t.includes("/") ? basename(t) : t);
	}
	return out;
}

/** The runs of a claimed command: its last stage aside, most of its words in the same order of programs. */
export function runsOf(facts: CallFact[], end: number, claim: Claim): CallFact[] {
	const want = claim.command ? tokens(claim.command) : [];
	const exact: CallFact[] = [];
	const sameKind: CallFact[] = [];
	for (let i = 0; i < end; i++) {
		const f = facts[i] as CallFact;
		if (f.command === undefined || !f.check) continue;
		if (claim.check && f.check !== claim.check) continue;
		sameKind.push(f);
		if (!want.length) continue;
		const have = new Set(tokens(f.command));
		const program = want[0] as string;
		if (!have.has(program)) continue;
		let hits = 0;
		for (const w of want) if (have.has(w)) hits++;
		if (hits / want.length >= 0.6) exact.push(f);
	}
	return exact.length ? exact : sameKind;
}

export function shown(f: CallFact): string {
	return f.command !== undefined
		? `\`${f.command.length > 90 ? `${f.command.slice(0, 89)}…` : f.command}\``
		: `${f.name}${f.path ? ` ${f.path}` : ""}`;
}

export function failureWords(f: CallFact): string {
	const masked =
		f.piped && !f.isError
			? "; the pipe hid its exit code (it reported success)"
			: f.exitCode
				? `; exit code ${f.exitCode}`
				: "";
	return `call ${f.index} (${shown(f)}) says "${f.failure}"${masked}`;
}

export interface ClaimSignal {
	kind: Claim["kind"];
	/** The claim, quoted short. */
	claim: string;
	/** Tool-call indices the verdict rests on. */
	from: number;
	to: number;
	evidence: string;
	verdict: "contradicted" | "unbacked";
}

export interface Context {
	facts: CallFact[];
	end: number;
	segment: Segment;
	lastCodeEdit?: number;
	firstEdit?: number;
	disclosed: boolean;
	anyWrite: boolean;
	/** The message says it did the work itself (and is not a review or a plan). */
	attributed: boolean;
	/** The message reviews or plans rather than reports work done. */
	review: boolean;
	/** Shell commands run up to the stop, refused ones included. */
	commands: number;
	/**
	 * The agent launched other agents (a subagent or task tool): its report may relay theirs, whose
	 * runs and writes are in their own logs (the stopped-subtree verification judges those).
	 */
	delegated: boolean;
}

/** Tools that hand work to another agent (Pi's subagent, Claude Code's Task/Agent). */
const DELEGATING = new Set(["subagent", "Task", "Agent", "task"]);

export function delegates(fact: CallFact): boolean {
	return DELEGATING.has(fact.name) && fact.kind !== "poll";
}

/** Every run of a claimed command (any command, not only checks): most of its words, its program first. */
export function commandRuns(facts: CallFact[], end: number, command: string): CallFact[] {
	const want = tokens(command);
	const program = want[0];
	if (!program) return [];
	const out: CallFact[] = [];
	for (let i = 0; i < end; i++) {
		const f = facts[i] as CallFact;
		if (f.command === undefined) continue;
		const have = new Set(tokens(f.command));
		if (!have.has(program)) continue;
		let hits = 0;
		for (const w of want) if (have.has(w)) hits++;
		if (hits / want.length >= 0.6) out.push(f);
	}
	return out;
}

/** A verdict that rests on the whole segment (nothing in it backs the claim), not on one call. */
export function segmentSignal(
	ctx: Context,
	claim: Claim,
	verdict: ClaimSignal["verdict"],
	evidence: string,
	kind: Claim["kind"] = claim.kind,
): ClaimSignal {
	const from = ctx.segment.firstCall;
	return { kind, claim: claim.quote, from, to: Math.max(from, ctx.end - 1), verdict, evidence };
}
