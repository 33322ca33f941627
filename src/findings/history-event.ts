// What one line of the history log holds, and how an event becomes that line. Pure.
// A line starts with `{"at":"<ISO time>"` so the reader can judge its time from the prefix
// without parsing it, and stays under 4 KiB so one O_APPEND write puts it down whole however
// many Pi processes append at once. Texts are summaries and excerpts, capped here: the log
// never carries raw transcript text.
import { clip, oneLine } from "../util/index.ts";
import type { Fate } from "./delivery.ts";

export type ReviewTrigger = "boundary" | "activity" | "cadence" | "command";
export type ReviewOutcome = "clean" | "findings" | "failed" | "cancelled";
/** What became of a finding (the sink's word for it, delivery.ts). */
export type FindingFate = Fate;

export const FINDING_FATES: readonly FindingFate[] = [
	"sent to the agent",
	"shown to you",
	"below threshold",
	"duplicate",
	"stalemate",
	"held back",
	"dismissed",
];

/** Fields every line has. `at` is when the line was written (ISO 8601, UTC). */
export interface HistoryBase {
	at: string;
	/** Pi's session id (`sessionManager.getSessionId()`). */
	session: string;
	cwd: string;
	/** A child's events: its role and the launch it ran in. */
	role?: string;
	run?: string;
	/** A nested child's labels from the main session down ("worker > tester"); absent for a child of the main session. */
	path?: string;
}

export interface ReviewEvent extends HistoryBase {
	kind: "review";
	trigger: ReviewTrigger;
	model: string;
	thinking: string;
	durationMs: number;
	tokens: number;
	/** US dollars. */
	cost: number;
	outcome: ReviewOutcome;
	/** How many changed paths it covered. */
	paths: number;
	/** How many of them were left pending by an earlier cancelled or failed review. */
	carriedOver?: number;
	failure?: { kind: string; message: string };
}

export interface FindingEvent extends HistoryBase {
	kind: "finding";
	/** "main", a child role, "lsp", "loops", "claims", … */
	source: string;
	importance: "low" | "medium" | "high";
	severity: "concern" | "blocker";
	category?: string;
	summary: string;
	/** An excerpt, at most 300 characters. */
	evidence: string;
	fate: FindingFate;
	/** In a parent's log: the child it rose from, by its path below this session ("lead > tester"). */
	child?: string;
}

export interface LoopResolvedEvent extends HistoryBase {
	kind: "loop-resolved";
	summary: string;
}

/** The reviewer's question (`watchdog_ask`, clarification on) and what became of it. */
export interface QuestionEvent extends HistoryBase {
	kind: "question";
	/** The watchdog that asked: "main". */
	source: string;
	question: string;
	/** An excerpt, at most 300 characters. */
	evidence: string;
	outcome: "delivered" | "suppressed";
	/** Why it was not delivered. */
	reason?: string;
}

export interface FailureEvent extends HistoryBase {
	kind: "failure";
	/** What failed: "review", "lsp", "history", … */
	what: string;
	message: string;
}

export interface ConfigChangeEvent extends HistoryBase {
	kind: "config-change";
	by: "user" | "agent";
	outcome: string;
	/** Short text, e.g. the command that makes the change. */
	change: string;
}

/**
 * A launch rule's decision on one child, made in the parent before anything starts. `role` and
 * `run` are the child's (its agent and the launch it belongs to, started or not).
 */
export interface LaunchRuleEvent extends HistoryBase {
	kind: "launch-rule";
	source: "rules";
	role: string;
	run: string;
	/** The child's label in its launch ("worker", "worker#2"). */
	label: string;
	/** `provider/id:thinking`, as matched. */
	model: string;
	/** What decided it, e.g. `rules.roleModels.worker.deny "openai/*"`. */
	rule: string;
	action: "warn" | "block";
	decision: "allowed" | "warned" | "blocked";
	/** Whether the launch went on (a passing child of a blocked launch did not start either). */
	started: boolean;
	note?: string;
}

/**
 * One permission step of a child's tool call: a rule's deny, the arbiter's decision, a decision
 * reused for an identical ask, or an arbiter failure (which denies). Never the call's arguments.
 */
export interface PermissionEvent extends HistoryBase {
	kind: "permission";
	tool: string;
	/** The rule that decided, in words (`"edit": "ask" (global config …)`). */
	rule: string;
	decision: "approve" | "deny";
	how: "rule" | "arbiter" | "reused" | "failure" | "user";
	/** The reason the child was given (the arbiter's, or why it failed). */
	reason: string;
	/** Time from the call to the decision. */
	latencyMs: number;
	model?: string;
	/** What failed, when `how` is "failure": watchdog-off, no-model, timeout, no-tool-call, malformed, error. */
	failure?: string;
}

/** A rotation of the main session's model after a usage limit, or why there was none. */
export interface RotateEvent extends HistoryBase {
	kind: "rotate";
	outcome: "rotated" | "not rotated";
	/** The session's model when the run ended ("provider/id"). */
	from: string;
	to?: string;
	/** The provider's error, an excerpt. */
	error: string;
	/** What kind of limit it was, or why nothing switched. */
	reason: string;
	/** The models passed over, each with why: "local/x: unknown model; local/y: no credentials". */
	skipped?: string;
}

/** One stopped-subtree verification: what was checked and what came of it. */
export interface VerificationEvent extends HistoryBase {
	kind: "verification";
	source: "verify";
	/** The note of what was checked. */
	summary: string;
	outcome: "genuine" | "problems" | "unverified";
	/** The first 16 hex digits of the stop fingerprint. */
	fingerprint: string;
	children: number;
	/** "worker unproven, scout genuine". */
	verdicts: string;
	/** How the stop was seen: launch, completion, wait, status. */
	via: string;
	model?: string;
	cost?: number;
}

/** Kinds the later capabilities write; their own fields go in `details` until they get a shape. */
export interface LaterEvent extends HistoryBase {
	/** `fleet`: one fleet pass (its counts); its nudges are `nudge` lines with source `fleet`. */
	kind: "nudge" | "launch" | "fleet";
	summary: string;
	source?: string;
	outcome?: string;
	details?: Record<string, string | number | boolean>;
}

export type HistoryEvent =
	| ReviewEvent
	| FindingEvent
	| LoopResolvedEvent
	| QuestionEvent
	| FailureEvent
	| ConfigChangeEvent
	| LaunchRuleEvent
	| PermissionEvent
	| RotateEvent
	| VerificationEvent
	| LaterEvent;
export type HistoryKind = HistoryEvent["kind"];
export const HISTORY_KINDS: readonly HistoryKind[] = [
	"review",
	"finding",
	"loop-resolved",
	"question",
	"failure",
	"config-change",
	"launch-rule",
	"verification",
	"nudge",
	"rotate",
	"launch",
	"permission",
	"fleet",
];

type WithoutAt<E> = E extends HistoryEvent ? Omit<E, "at"> & { at?: string } : never;
/** What a writer hands to `append`: `at` is filled in with the time of writing when left out (leave it out). */
export type HistoryEventInput = WithoutAt<HistoryEvent>;

/** A line stays under this many bytes (with its newline): one write, never torn. */
export const MAX_LINE_BYTES = 4000;

/** Character caps per text field; anything not named gets `DEFAULT_CAP`. */
const CAPS: Record<string, number> = {
	verdicts: 300,
	summary: 300,
	question: 500,
	evidence: 300,
	message: 500,
	change: 300,
	cwd: 1024,
	session: 200,
	rule: 600,
	note: 400,
	reason: 500,
	error: 300,
	skipped: 600,
};
const DEFAULT_CAP = 200;
/** Fields that stay whole while the rest shrink to fit a line (they are what filters compare). */
const KEPT: ReadonlySet<string> = new Set(["at", "session", "cwd", "kind"]);

/** The line for one event (with its newline), or an error when it cannot be written at all. */
export function eventLine(
	event: HistoryEventInput,
	now: Date,
): { ok: true; line: string } | { ok: false; error: string } {
	if (!event || typeof event !== "object" || typeof event.kind !== "string")
		return { ok: false, error: "a history event needs a kind" };
	const at =
		typeof event.at === "string" && !Number.isNaN(Date.parse(event.at))
			? new Date(event.at).toISOString()
			: now.toISOString();
	const { at: _ignored, session, cwd, kind, ...rest } = event as HistoryEventInput & Record<string, unknown>;
	// `at` first, then the fields every filter looks at, then the kind's own.
	const ordered = { at, session: String(session ?? ""), cwd: String(cwd ?? ""), kind: clip(kind, 40), ...rest };
	for (let scale = 1; scale >= 1 / 64; scale /= 2) {
		const line = `${JSON.stringify(capped(ordered, scale, 1))}\n`;
		if (Buffer.byteLength(line) <= MAX_LINE_BYTES) return { ok: true, line };
	}
	// Still too long (fields full of characters JSON writes as \uXXXX): the kept ones are cut too,
	// and at the very last only they remain. A line is never dropped for its length.
	const cut = `${JSON.stringify(capped(ordered, 1 / 64, 1 / 4))}\n`;
	if (Buffer.byteLength(cut) <= MAX_LINE_BYTES) return { ok: true, line: cut };
	const bare = {
		at,
		session: ordered.session,
		cwd: ordered.cwd,
		kind: ordered.kind,
		note: "fields left out: too long",
	};
	return { ok: true, line: `${JSON.stringify(capped(bare, 1, 1 / 4))}\n` };
}

/** As JSON a character takes up to 6 bytes (\uXXXX); kept fields get this many bytes per character of their cap. */
const KEPT_BYTES_PER_CHAR = 2;

/** `text` cut to `chars` characters and to `bytes` bytes as a JSON string, whichever is shorter. */
function fitText(text: string, chars: number, bytes: number): string {
	const size = (t: string) => Buffer.byteLength(JSON.stringify(t));
	let fitted = clip(text, chars);
	if (size(fitted) <= bytes) return fitted;
	let [low, high] = [0, Math.min(text.length, chars)];
	while (low < high) {
		const mid = Math.ceil((low + high) / 2);
		if (size(clip(text, mid)) <= bytes) low = mid;
		else high = mid - 1;
	}
	fitted = clip(text, low);
	return size(fitted) <= bytes ? fitted : "";
}

/**
 * A copy with every string cut to its cap × scale (kept fields to their cap × keptScale, and
 * to twice as many bytes, so escaped control characters cannot swell them), numbers finite.
 */
function capped(value: Record<string, unknown>, scale: number, keptScale: number): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [key, v] of Object.entries(value)) {
		if (v === undefined) continue;
		const cap = CAPS[key] ?? DEFAULT_CAP;
		if (typeof v === "string") {
			const text = key === "summary" ? oneLine(v) : v;
			const chars = Math.max(8, Math.floor(cap * (KEPT.has(key) ? keptScale : scale)));
			out[key] = key === "at" ? v : fitText(text, chars, KEPT.has(key) ? chars * KEPT_BYTES_PER_CHAR : chars * 6);
		} else if (typeof v === "number") out[key] = Number.isFinite(v) ? v : 0;
		else if (typeof v === "boolean" || v === null) out[key] = v;
		else if (typeof v === "object" && !Array.isArray(v)) {
			out[key] = capped(v as Record<string, unknown>, scale, scale);
		}
		// Arrays and anything else are left out: a line holds counts and short texts, not lists.
	}
	return out;
}

/** A parsed line, if it is one: a plain object with a valid `at` and a `kind`. */
export function asEvent(value: unknown): HistoryEvent | undefined {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
	const v = value as Record<string, unknown>;
	if (typeof v.at !== "string" || Number.isNaN(Date.parse(v.at)) || typeof v.kind !== "string") return undefined;
	return value as HistoryEvent;
}
