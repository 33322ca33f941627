// The state of one session from the tail of its transcript, without a model: the unfinished-stop
// detector and the claims checker (src/evidence/) read how its last stretch ended; the clock says
// whether it is still fresh, stalled or dormant. Never guesses idle: a tail that does not show a
// clear stop is `unknown` with the reason. Pure.
import { checkClaims, EvidenceLog, type Segment, unfinishedStop } from "../evidence/index.ts";
import type { SessionEvent } from "../transcript/index.ts";
import { clip, oneLine } from "../util/index.ts";
import type { FleetState, FleetTimes } from "./types.ts";

export interface TailInput {
	/** The tail's events in order (a prompt before them may be missing: the tail starts mid-file). */
	events: SessionEvent[];
	/** The session's first prompt, from the head, when the tail holds none. */
	firstPrompt?: string;
	/** Last activity (ms since the epoch): the file's last write, or a live session's report. */
	lastActivityMs: number;
	now: number;
	times: FleetTimes;
	/** A live session says whether it is running now. */
	busy?: boolean;
	/** A live session says it (or a child under it) waits on the permission arbiter or the user. */
	waiting?: { what: string; sinceMs: number };
	/** The tail starts mid-file: calls before it are unknown, so claims are checked only when it holds the prompt. */
	cut?: boolean;
}

export interface Classified {
	state: FleetState;
	reason: string;
	kind?: string;
	nextStep?: string;
	goal: string;
	concluded: string;
	preview: string;
	attention: boolean;
}

/** A question or request to the user in the closing words: the user's feed, not ours. */
const ASKS = new RegExp(
	String.raw`\?\s*$|\b(let me know|please (?:confirm|provide|approve|choose|decide|advise)|waiting for your|` +
		String.raw`your (?:call|decision|approval|go-ahead|input))\b`,
	"i",
);

/** The prompt the EvidenceLog keeps of a segment (its PROMPT_CHARS): the goal is read from the same text. */
const PROMPT_CHARS = 4_000;

/** "3m", "2h", "4d": short, for reasons and the view. */
export function ageText(ms: number): string {
	const s = Math.max(0, Math.round(ms / 1000));
	if (s < 90) return `${s}s`;
	const m = Math.round(s / 60);
	if (m < 90) return `${m}m`;
	const h = Math.round(m / 60);
	return h < 36 ? `${h}h` : `${Math.round(h / 24)}d`;
}

/** A live session's own report of its wait, with how long it has lasted. */
export function liveWaitReason(wait: { what: string; sinceMs: number }, now: number): string {
	return `${wait.what} (for ${ageText(now - wait.sinceMs)}, the live session says so)`;
}

function lastSentence(text: string): string {
	const parts = text
		.replace(/```[\s\S]*?(```|$)/g, " ")
		.split(/(?<=[.!?])\s+|\n+/)
		.map((s) => s.trim())
		.filter((s) => /[A-Za-z0-9]/.test(s));
	return parts.at(-1) ?? "";
}

/** How the stretch ended, as the EvidenceLog would tell it, from the events alone (no facts built). */
interface Shape {
	/** Anything after the prompt. */
	activity: boolean;
	/** An assistant message after the last call. */
	spoke: boolean;
	/** The last of those ended on a provider or harness error. */
	error: boolean;
}

function shapeOf(events: SessionEvent[]): Shape {
	const shape: Shape = { activity: false, spoke: false, error: false };
	for (const event of events) {
		// A compaction entry changes nothing the log keeps.
		if (event.type === "prompt" || event.type === "compaction") continue;
		shape.activity = true;
		if (event.type === "call") {
			shape.spoke = false;
			shape.error = false;
		} else {
			shape.spoke = true;
			shape.error = event.error === true;
		}
	}
	return shape;
}

export function classifyTail(input: TailInput): Classified {
	const age = input.now - input.lastActivityMs;
	// Only the last stretch (since the tail's last prompt) is judged: earlier ones cost facts for nothing.
	let start = input.events.length;
	while (start > 0 && input.events[start - 1]?.type !== "prompt") start--;
	const events = start > 0 ? input.events.slice(start - 1) : input.events;
	const first = events[0];
	const sawPrompt = first?.type === "prompt";
	let lastText = "";
	for (let i = events.length - 1; i >= 0 && !lastText; i--) {
		const event = events[i];
		if (event?.type === "assistant" && event.text.trim()) lastText = event.text;
	}
	// The goal as the log keeps it: the stretch's prompt, else the session's first, cut to PROMPT_CHARS.
	const prompt = first?.type === "prompt" ? first.text : (input.firstPrompt ?? "");
	const goal = clip(oneLine(prompt.slice(0, PROMPT_CHARS)), 300);
	const preview = clip(oneLine(lastSentence(lastText)), 140);
	const base = { goal, preview, concluded: preview };
	const say = (state: FleetState, reason: string, extra: Partial<Classified> = {}): Classified => ({
		...base,
		state,
		reason,
		attention: state === "idle" || state === "waiting",
		...extra,
	});
	const fresh = age < input.times.stallMs;
	// The clock, the live report and how the stretch ended decide first: the detectors (and the
	// facts they read) are built only for a stop the agent chose, the one case their verdict decides.
	// A live wait on the arbiter or the user comes before the clock: however long, it is yours to settle.
	if (input.waiting) return say("waiting", liveWaitReason(input.waiting, input.now), { kind: "blocked" });
	if (age >= input.times.dormantMs) return say("dormant", `no activity for ${ageText(age)}`);
	if (input.busy) return say("working", "a run is in progress (the live session says so)");
	if (!input.events.length) return say("unknown", "no readable entries at the end of the file");
	const shape = shapeOf(events);
	if (!shape.activity) {
		if (fresh) return say("working", `a prompt was sent ${ageText(age)} ago; no reply yet`);
		return say(
			"unknown",
			`the last entry is a prompt with no reply for ${ageText(age)}: the run died or never started`,
		);
	}
	if (!shape.spoke) {
		if (fresh) return say("working", `last tool call ${ageText(age)} ago`);
		return say("unknown", `the transcript ends on a tool call ${ageText(age)} ago: interrupted or killed mid-run`);
	}
	if (shape.error)
		return say("unknown", "the last run ended on a provider or harness error, not by the agent's choice");
	// Facts are built only if the verdict reads them (the claims checker, some unfinished stops).
	const log = new EvidenceLog({ deferFacts: true });
	if (input.firstPrompt && !sawPrompt) log.add({ type: "prompt", text: input.firstPrompt });
	for (const event of events) log.add(event);
	// A claim is judged against the whole stretch since its prompt, never against part of it.
	const whole = !input.cut || sawPrompt;
	return judgeStop(log, log.current(), { fresh, age, whole }, say, preview);
}

type Say = (state: FleetState, reason: string, extra?: Partial<Classified>) => Classified;

/** A stop the agent chose: waiting for the user, unfinished (idle once stalled), or done. */
function judgeStop(
	log: EvidenceLog,
	segment: Segment,
	{ fresh, age, whole }: { fresh: boolean; age: number; whole: boolean },
	say: Say,
	preview: string,
): Classified {
	const signal = unfinishedStop(log, segment);
	if (signal?.kind === "sign-off")
		return say("waiting", signal.evidence, { kind: "sign-off", concluded: signal.words });
	const unfinished = signal?.unfinished
		? { kind: signal.kind, reason: signal.evidence, nextStep: signal.nextStep, concluded: signal.words }
		: undefined;
	const closing = lastSentence(segment.stop.text);
	if (!unfinished && ASKS.test(closing))
		return say("waiting", `asked the user: "${clip(oneLine(closing), 120)}"`, { kind: "question" });
	const contradicted =
		unfinished || !whole ? undefined : checkClaims(log.facts, segment).find((c) => c.verdict === "contradicted");
	const found =
		unfinished ??
		(contradicted && {
			kind: "claim",
			reason: `claims "${clip(oneLine(contradicted.claim), 80)}", but ${contradicted.evidence}`,
			nextStep: "Rerun the check after your last edit and report what it really shows; fix what fails.",
			concluded: clip(oneLine(contradicted.claim), 160),
		});
	if (!found) return say("done", "stopped with a closing message and no sign of unfinished work");
	if (fresh)
		return say("working", `stopped ${ageText(age)} ago (${found.kind}); judged idle after the stall time`, {
			kind: found.kind,
		});
	return say("idle", found.reason, {
		kind: found.kind,
		nextStep: found.nextStep,
		concluded: found.concluded || preview,
	});
}
