// What the loop detector reports (a signal: kind, the calls it rests on, a headline and the
// evidence, a way out) and the thresholds it works to.

export type SignalKind =
	| "repeat"
	| "rerun"
	| "target"
	| "stale"
	| "dominant"
	| "reread"
	| "cycle"
	| "restating"
	| "waiting"
	| "echo"
	| "same-answer"
	| "compaction"
	| "retry";

/**
 * Signals that rest on the agent learning nothing new rather than on exact repetition: a
 * suspicion until the stretch ends without anything landing (an agent that probes a puzzle
 * from many sides and then lands the fix was investigating, not looping).
 */
export const WEAK_SIGNALS: ReadonlySet<SignalKind> = new Set(["target", "stale", "restating", "waiting"]);

export interface LoopSignal {
	kind: SignalKind;
	/** Identifies the signal, so the same signal is not reported twice. */
	key: string;
	/** What the loop is about: one call (`call:…`), one file (`file:…`) or one target. */
	subject: string;
	/** 0-based tool-call indices the signal rests on. */
	from: number;
	to: number;
	/** How many calls make it up (grows while the loop goes on). */
	count: number;
	/** What happened, in a short line (a finding's summary); the detail is in the evidence. */
	headline: string;
	evidence: string;
	/** A concrete way out, for the agent. */
	wayOut: string;
}

export interface LoopThresholds {
	window: number;
	repeats: number;
	targetHits: number;
	readOnlyTargetHits: number;
	dominantShare: number;
	rereadFactor: number;
	cycleRepeats: number;
	/** Calls in the window (reads aside) that told the agent nothing new about what they looked at. */
	staleCalls: number;
	/** Runs of one check (tests, build, type check, lint) with the same result while nothing landed. */
	checkRepeats: number;
	/** Turns saying the same sentence while the calls in between brought nothing new. */
	restateRepeats: number;
	/** Identical failing calls (an error answer) that make a repeat: errors come back sooner than answers. */
	errorRepeats: number;
	/** Failing runs of one command (however the error is worded) while nothing landed. */
	failRepeats: number;
	/** The same text-only answer in this many turns in a row. */
	sameAnswers: number;
	/** Context compactions or overflows with nothing landing between. */
	compactions: number;
	/** Time an agent may wait (sleeps, blocking polls) on an unchanged answer before it counts. */
	maxWaitMs: number;
}

export const DEFAULT_THRESHOLDS: LoopThresholds = {
	window: 50,
	repeats: 5,
	targetHits: 12,
	readOnlyTargetHits: 8,
	dominantShare: 0.5,
	rereadFactor: 3,
	cycleRepeats: 3,
	staleCalls: 6,
	checkRepeats: 3,
	restateRepeats: 3,
	errorRepeats: 4,
	failRepeats: 4,
	sameAnswers: 3,
	compactions: 3,
	maxWaitMs: 1_800_000,
};
