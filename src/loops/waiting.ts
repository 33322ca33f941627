// Waiting versus looping. An agent that polls a background job (the same status call, the
// same answer) with a sleep before each check that is no shorter than the last is waiting, and
// deserves patience up to a bound (a total time waited, a number of polls); one that polls with
// no wait in between is held to the usual repeat threshold. The call that only sleeps is no call
// of its own to the other signals: it tells nothing and does nothing. Pure, bounded state.
import type { LoopSignal, LoopThresholds } from "./signal.ts";
import { sleptText, waitingText } from "./loop-text.ts";
import { normalizeCommand } from "./normalize.ts";
import type { ToolCallRecord } from "../transcript/index.ts";

export interface WaitInfo {
	/** How long the call waits, in ms. */
	ms: number;
	/** It does nothing but wait (`sleep 30`, `sleep 60 && echo waiting`). */
	pure: boolean;
	/** A bash call that sleeps and then checks: the check alone (`sleep 60 && gh run view` → `gh run view`). */
	check?: string;
}

/** A blocking wait whose length the call does not give (TaskOutput `block: true`, `action: "wait"`). */
const UNSTATED_WAIT_MS = 30_000;
/** Polls a waiting agent may make on one unchanged answer: this many times the repeat threshold. */
export const WAIT_POLL_FACTOR = 4;
const MAX_TRACKED = 256;

const SLEEP = /^sleep\s+(\d+(?:\.\d+)?)([smhd]?)$/;
const UNIT_MS: Record<string, number> = { "": 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Segments that neither check nor change anything: a waiting agent's `echo "waiting…"`. */
const IDLE_SEGMENT = /^(echo|printf|true|:|date)(\s|$)/;

/** What a call waits, when it waits at all. Cheap for the calls that do not (most of them). */
export function waitOf(call: ToolCallRecord): WaitInfo | undefined {
	if (call.kind === "bash") return call.command?.includes("sleep") ? bashWait(call.command) : undefined;
	const args = call.args;
	if (args.action === "wait" || args.block === true || args.wait === true) {
		const ms = msArg(args.timeoutMs ?? args.timeout_ms) ?? msArg(args.timeout) ?? UNSTATED_WAIT_MS;
		return { ms, pure: false };
	}
	if (/^(sleep|wait)$/i.test(call.name)) {
		const seconds = msArg(args.seconds);
		return {
			ms:
				seconds !== undefined
					? seconds * 1000
					: (msArg(args.ms ?? args.duration ?? args.timeoutMs) ?? UNSTATED_WAIT_MS),
			pure: true,
		};
	}
	return undefined;
}

function msArg(value: unknown): number | undefined {
	return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function bashWait(command: string): WaitInfo | undefined {
	let ms = 0;
	const rest: string[] = [];
	for (const raw of normalizeCommand(command).split(/\s*(?:&&|\|\||;)\s*|\s+&\s+/)) {
		const segment = raw.trim();
		if (!segment) continue;
		const sleep = SLEEP.exec(segment);
		if (sleep) ms += Number(sleep[1]) * UNIT_MS[sleep[2]];
		else rest.push(segment);
	}
	if (ms === 0) return undefined;
	const pure = rest.every((s) => IDLE_SEGMENT.test(s));
	return pure ? { ms, pure } : { ms, pure, check: rest.join(" && ") };
}

/** One call (and answer) polled across waits: the gaps between its occurrences. */
export interface Polls {
	/** Total waited (of the whole detector) at its last occurrence. */
	mark: number;
	count: number;
	first: number;
	/** Gaps between occurrences with a wait in them, and the last gap's wait. */
	waitedGaps: number;
	lastGap: number;
	/** A gap waited less than the one before it: the agent is not backing off. */
	shrank: boolean;
	/** Waited across the gaps. */
	total: number;
}

/** Where one repeated call stands: waiting within the bound, past it, or not waiting at all. */
export type Patience = { kind: "none" } | { kind: "waiting"; polls: Polls } | { kind: "over"; polls: Polls };

const NOT_WAITING: Patience = { kind: "none" };

export class Waiting {
	/** Waited since the last reset (sleeps, and the waits of calls that check). */
	private waited = 0;
	/** Waited in sleeps since the last call that did more than wait (polls between sleeps are observe's business). */
	private sleptInRow = 0;
	private sleepsInRow = 0;
	private firstSleep = -1;
	private polls = new Map<string, Polls>();

	reset(): void {
		this.waited = 0;
		this.sleptInRow = 0;
		this.sleepsInRow = 0;
		this.firstSleep = -1;
		this.polls.clear();
	}

	/** A call that only waits: the signal once sleeps in a row, with no other call, pass the bound. */
	slept(ms: number, index: number, maxWaitMs: number): LoopSignal[] {
		this.waited += ms;
		this.sleptInRow += ms;
		this.sleepsInRow++;
		if (this.firstSleep < 0) this.firstSleep = index;
		return this.sleptInRow >= maxWaitMs
			? [sleptSignal({ ms: this.sleptInRow, sleeps: this.sleepsInRow, first: this.firstSleep }, index, maxWaitMs)]
			: [];
	}

	/**
	 * Another occurrence of a call with its answer (`combo`), which itself waits `ownMs` first.
	 * Waiting: every gap since its first occurrence held a wait and none was shorter than the one
	 * before; `seen` is how many times the detector counts it, `firstSeen` the first of them. Past the bound
	 * once the waits add up to maxWaitMs or the polls to maxPolls.
	 */
	observe(
		combo: string,
		ownMs: number,
		seen: number,
		firstSeen: number,
		bounds: { maxWaitMs: number; maxPolls: number },
	): Patience {
		this.sleptInRow = 0;
		this.sleepsInRow = 0;
		this.firstSleep = -1;
		if (ownMs > 0) this.waited += ownMs;
		// Nothing has waited since the last reset: nothing to track (the common case, kept cheap).
		if (this.waited === 0) return NOT_WAITING;
		let p = this.polls.get(combo);
		if (!p) {
			// Tracked from the first wait on. Seen once before that: everything waited since lies
			// between the two (its own wait precedes its check). Seen more often: gaps without a wait.
			const gap = seen === 2 ? this.waited : 0;
			p = {
				mark: this.waited,
				count: Math.min(seen, 2),
				first: firstSeen,
				waitedGaps: gap > 0 ? 1 : 0,
				lastGap: gap,
				shrank: false,
				total: gap,
			};
			this.polls.set(combo, p);
			if (this.polls.size > MAX_TRACKED) this.polls.delete(this.polls.keys().next().value as string);
			return NOT_WAITING;
		}
		const gap = this.waited - p.mark;
		if (gap > 0) {
			p.waitedGaps++;
			if (gap < p.lastGap) p.shrank = true;
			p.lastGap = gap;
			p.total += gap;
		}
		p.mark = this.waited;
		p.count++;
		// `seen`: the detector's count of it; occurrences from before any wait had no wait between them.
		if (p.count < seen || p.waitedGaps < p.count - 1 || p.shrank) return NOT_WAITING;
		return p.total >= bounds.maxWaitMs || p.count > bounds.maxPolls
			? { kind: "over", polls: p }
			: { kind: "waiting", polls: p };
	}
}

/** `45000` → `45 s`; `90000` → `1.5 min`; `3720000` → `62 min`; `9000000` → `2.5 h`. */
export function waitLabel(ms: number): string {
	if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
	if (ms < 7_200_000) return `${Number((ms / 60_000).toFixed(ms < 600_000 ? 1 : 0))} min`;
	return `${Number((ms / 3_600_000).toFixed(1))} h`;
}

const WAIT_WAY_OUT =
	"You have waited long enough on an answer that does not change: read the job's " +
	"log or output once to see whether it is stuck, then decide (stop it, fix it, " +
	"or tell the user).";

/** Polling across waits went past the bound (time waited, or polls). */
export function waitingSignal(
	call: ToolCallRecord,
	callHash: string,
	label: string,
	polls: Polls,
	t: LoopThresholds,
): LoopSignal {
	const maxPolls = WAIT_POLL_FACTOR * t.repeats;
	return {
		kind: "waiting",
		key: `waiting:${callHash}`,
		subject: `call:${callHash}`,
		from: polls.first,
		to: call.index,
		count: polls.count,
		...waitingText({
			tool: call.name,
			label,
			count: polls.count,
			first: polls.first,
			to: call.index,
			waited: waitLabel(polls.total),
			lastWait: waitLabel(polls.lastGap),
			bound: waitLabel(t.maxWaitMs),
			maxPolls,
		}),
		wayOut: WAIT_WAY_OUT,
	};
}

/** Sleeping with nothing new in between went past the bound. */
export function sleptSignal(
	over: { ms: number; sleeps: number; first: number },
	to: number,
	maxWaitMs: number,
): LoopSignal {
	return {
		kind: "waiting",
		key: "waiting:sleep",
		subject: "sleep",
		from: over.first,
		to,
		count: over.sleeps,
		...sleptText({
			slept: waitLabel(over.ms),
			sleeps: over.sleeps,
			first: over.first,
			to,
			bound: waitLabel(maxWaitMs),
		}),
		wayOut: WAIT_WAY_OUT,
	};
}
