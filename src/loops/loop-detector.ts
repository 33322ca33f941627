// The loop detector: fed every tool call, no model involved, constant work per call and
// memory bounded by the window. It notices an agent that repeats itself without getting
// anywhere, and forgets everything once something lands (an edit that changed a file, a
// commit) or a real user prompt arrives. Progress is not a loop: chunked reads of one file
// at different offsets, polling whose output changes, steady work across many files.
import { isCheckCommand, mayChangeFiles } from "./checks.ts";
import { callSignature, describeCall, landed, outcomeText, shortHash, subjectsOf, targetOf } from "./normalize.ts";
import { cycleText, dominantText, repeatText, rereadText, rerunText, staleText, targetText } from "./loop-text.ts";
import { MIN_REREAD_LINES, ReadCoverage } from "./read-coverage.ts";
import { Restating } from "./restating.ts";
import { DEFAULT_THRESHOLDS, type LoopSignal, type LoopThresholds } from "./signal.ts";
import type { ToolCallRecord } from "../transcript/index.ts";
import { WAIT_POLL_FACTOR, Waiting, waitingSignal, waitOf } from "./waiting.ts";

export { DEFAULT_THRESHOLDS, type LoopSignal, type LoopThresholds, type SignalKind, WEAK_SIGNALS } from "./signal.ts";

interface Slot {
	index: number;
	call: string; // call signature hash
	combo: string; // call + outcome hash
	target: string;
	/** Whether this call told the agent nothing new about its target. */
	noNews: boolean;
	/** Counts towards the stale signal: a call other than a read that told nothing new (rereading is the read signals' business). */
	stale: boolean;
}

interface CallTally {
	count: number;
	/** How many of them told the agent nothing new. */
	stale: number;
	first: number;
	last: number;
}

const MAX_TALLIES = 400;
const MAX_SUBJECTS = 256;
const MAX_OUTCOMES_PER_CALL = 16;

export class LoopDetector {
	readonly thresholds: LoopThresholds;
	private readonly readOnly: boolean;
	private ring: Slot[] = [];
	private head = 0;
	private combos = new Map<string, { count: number; first: number }>();
	private noNewsByTarget = new Map<string, number>();
	private tallies = new Map<string, CallTally>();
	private reads = new ReadCoverage();
	/** Outcomes each subject (a file, a command) has produced since the last landing. */
	private subjects = new Map<string, Set<string>>();
	private staleInWindow = 0;
	/** Polls: the current run of identical answers per call. */
	private streaks = new Map<string, { outcome: string; count: number; first: number }>();
	private callsSinceLanding = 0;
	/** Checks run since the last landing: call + outcome → runs. */
	private checkRuns = new Map<string, { count: number; first: number }>();
	private recent: Array<{ combo: string; call: ToolCallRecord; index: number }> = [];
	private readonly waiting = new Waiting();
	private readonly restating = new Restating();
	private lastIndex = -1;
	calls = 0;
	lastLanded?: number;

	constructor(thresholds: Partial<LoopThresholds> = {}, options: { readOnly?: boolean } = {}) {
		this.thresholds = { ...DEFAULT_THRESHOLDS, ...thresholds };
		this.readOnly = options.readOnly ?? false;
	}

	/** Forget everything (a real user prompt, or something landed). */
	reset(): void {
		this.ring = [];
		this.head = 0;
		this.combos.clear();
		this.noNewsByTarget.clear();
		this.tallies.clear();
		this.reads.clear();
		this.subjects.clear();
		this.streaks.clear();
		this.checkRuns.clear();
		this.staleInWindow = 0;
		this.recent = [];
		this.callsSinceLanding = 0;
		this.waiting.reset();
		this.restating.reset();
	}

	/** Feeds one call; returns the signals that hold after it (the caller decides what is new). */
	add(call: ToolCallRecord): LoopSignal[] {
		this.calls++;
		this.lastIndex = call.index;
		if (landed(call)) {
			this.lastLanded = call.index;
			this.reset();
			return [];
		}
		// A call that only sleeps is nothing the other signals look at (waiting.ts).
		const wait = waitOf(call);
		if (wait?.pure) return this.waiting.slept(wait.ms, call.index, this.thresholds.maxWaitMs);
		this.callsSinceLanding++;
		const plain = wait?.check === undefined ? callSignature(call) : undefined; // for target and subjects too
		const signature = plain ?? `bash ${wait?.check}`;
		const callHash = shortHash(signature);
		const resultHash = shortHash(outcomeText(call.result, call.isError));
		const combo = `${callHash}:${resultHash}`;
		const target = targetOf(call, plain);
		// The readable label is only needed when a signal is raised.
		let label: string | undefined;
		const labelOf = () => (label ??= describeCall(call));
		const t = this.thresholds;

		// Did this call tell the agent anything new? A read of lines already read, or an answer its
		// subject (the file, the command) already gave since the last landing, did not.
		// A poll says nothing new only once its answer has stopped changing for a while.
		const streak = call.kind === "poll" || wait ? this.pollStreak(callHash, resultHash, call.index) : undefined;
		const known = this.combos.get(combo);
		// Polling between waits that do not get shorter is waiting: patience, up to the bound.
		const patience = this.waiting.observe(
			combo,
			wait?.ms ?? 0,
			streak?.count ?? (known?.count ?? 0) + 1,
			streak?.first ?? known?.first ?? call.index,
			{ maxWaitMs: t.maxWaitMs, maxPolls: WAIT_POLL_FACTOR * t.repeats },
		);
		const patient = patience.kind === "waiting";
		const noNews = patient
			? false
			: streak
				? streak.count >= t.repeats
				: call.kind === "read" && call.path
					? this.reads.alreadyRead(call)
					: this.seenBefore(subjectsOf(call, plain), resultHash);
		if (!known && !noNews) this.restating.news();
		this.push({ index: call.index, call: callHash, combo, target, noNews, stale: noNews && call.kind !== "read" });

		const signals: LoopSignal[] = [];

		// 1. The same call with the same outcome, again and again. A poll counts only while its
		// answer stays the same: polling whose output changes is progress.
		const c = streak ?? this.combos.get(combo);
		if (patience.kind === "over") signals.push(waitingSignal(call, callHash, labelOf(), patience.polls, t));
		else if (!patient && c && c.count >= t.repeats) {
			signals.push({
				kind: "repeat",
				key: `repeat:${combo}`,
				subject: `call:${callHash}`,
				from: c.first,
				to: call.index,
				count: c.count,
				...repeatText({
					tool: call.name,
					label: labelOf(),
					poll: call.kind === "poll",
					count: c.count,
					first: c.first,
					to: call.index,
					window: Math.min(this.ring.length, t.window),
					threshold: t.repeats,
				}),
				wayOut:
					call.kind === "poll"
						? "Stop polling the same status: wait longer between checks, or read the process's log once and decide whether it is stuck."
						: "Stop repeating this call: its result will not change. Use the result you already have and take the next step.",
			});
		}

		// 1b. A check run again with the same result while nothing has landed: it cannot tell
		// anything new until something changes.
		const command = call.kind === "bash" && call.command !== undefined ? signature.slice("bash ".length) : undefined;
		// A command that may have written files (a redirect, sed -i, git checkout…) is not a
		// landing the detector can see, but the checks may answer differently after it.
		if (command !== undefined && mayChangeFiles(command)) this.checkRuns.clear();
		else if (command !== undefined && isCheckCommand(command)) {
			const runs = this.checkRun(combo, call.index);
			if (runs.count >= t.checkRepeats) {
				signals.push({
					kind: "rerun",
					key: `rerun:${combo}`,
					subject: `call:${callHash}`,
					from: runs.first,
					to: call.index,
					count: runs.count,
					...rerunText({
						label: labelOf(),
						count: runs.count,
						first: runs.first,
						to: call.index,
						lastLanded: this.lastLanded,
						threshold: t.checkRepeats,
					}),
					wayOut:
						"Do not run this check again until you have changed something: it will say the same. Act on its result (fix what it reports), or report it as it stands.",
				});
			}
		}

		// 2. One target worked on without new results.
		const hits = this.noNewsByTarget.get(target) ?? 0;
		const limit = this.readOnly ? t.readOnlyTargetHits : t.targetHits;
		if (hits >= limit) {
			const from = this.firstIndexOfTarget(target);
			signals.push({
				kind: "target",
				key: `target:${target}`,
				subject:
					call.kind === "read" && call.path
						? `file:${call.path}`
						: call.kind === "bash" || call.kind === "search"
							? `target:${target}`
							: `call:${callHash}`,
				from,
				to: call.index,
				count: hits,
				...targetText({
					target,
					hits,
					first: from,
					to: call.index,
					window: Math.min(this.ring.length, t.window),
					threshold: limit,
				}),
				wayOut:
					"You already have what this gives you. Write down what you learned, decide, and act on it (an edit, a test run, or a question to the user).",
			});
		}

		// 2b. Many calls in the window that told the agent nothing new, whatever they were.
		if (this.staleInWindow >= t.staleCalls) {
			const from = this.firstStaleIndex();
			signals.push({
				kind: "stale",
				key: "stale",
				subject: "stale",
				from,
				to: call.index,
				count: this.staleInWindow,
				...staleText({
					count: this.staleInWindow,
					window: this.ring.length,
					first: from,
					to: call.index,
					latest: labelOf(),
					threshold: t.staleCalls,
				}),
				wayOut:
					"The investigation has stopped producing information. Act on what you know (make the change, run the one check that decides it), or ask the user.",
			});
		}

		// 3. One call dominating everything since the last landing, mostly with results seen before.
		const tally = this.tally(callHash, noNews, call.index);
		if (
			tally.count >= limit &&
			tally.count >= this.callsSinceLanding * t.dominantShare &&
			tally.stale >= tally.count / 2
		) {
			signals.push({
				kind: "dominant",
				key: `dominant:${callHash}`,
				subject: `call:${callHash}`,
				from: tally.first,
				to: call.index,
				count: tally.count,
				...dominantText({
					tool: call.name,
					label: labelOf(),
					count: tally.count,
					since: this.callsSinceLanding,
					stale: tally.stale,
					first: tally.first,
					to: call.index,
					lastLanded: this.lastLanded,
					share: t.dominantShare,
				}),
				wayOut:
					"This call is not moving the work forward. Change approach: make the smallest edit that tests your current idea, or ask the user.",
			});
		}

		// 4. A file read over and over.
		if (call.kind === "read" && call.path) {
			const reads = this.reads.record(call);
			const unique = reads.unique;
			if (reads.total >= MIN_REREAD_LINES && unique > 0 && reads.total >= unique * t.rereadFactor) {
				signals.push({
					kind: "reread",
					key: `reread:${call.path}`,
					subject: `file:${call.path}`,
					from: reads.first,
					to: call.index,
					count: Math.floor(reads.total / unique),
					...rereadText({
						path: call.path,
						total: reads.total,
						unique,
						first: reads.first,
						to: call.index,
						factor: t.rereadFactor,
					}),
					wayOut: "Stop re-reading this file: note the parts you need once, then make the change.",
				});
			}
		}

		// 5. A short cycle (A-B-A-B, A-B-C-A-B-C) of identical calls with identical results.
		const cycle = this.cycle(combo, call, call.index);
		if (cycle && !patient) signals.push(cycle);
		return signals;
	}

	/** An assistant message's visible text (restating.ts): the signal when it restates itself. */
	said(text: string): LoopSignal[] {
		return this.restating.add(text, this.lastIndex, this.thresholds.restateRepeats);
	}

	/** What the detector is watching, for status. */
	snapshot(): { calls: number; windowFill: number; callsSinceLanding: number; lastLanded?: number } {
		return {
			calls: this.calls,
			windowFill: this.ring.length,
			callsSinceLanding: this.callsSinceLanding,
			...(this.lastLanded !== undefined ? { lastLanded: this.lastLanded } : {}),
		};
	}

	private push(slot: Slot): void {
		const w = this.thresholds.window;
		if (this.ring.length < w) this.ring.push(slot);
		else {
			this.evict(this.ring[this.head]);
			this.ring[this.head] = slot;
			this.head = (this.head + 1) % w;
		}
		const c = this.combos.get(slot.combo);
		if (c) c.count++;
		else this.combos.set(slot.combo, { count: 1, first: slot.index });
		if (slot.noNews) this.noNewsByTarget.set(slot.target, (this.noNewsByTarget.get(slot.target) ?? 0) + 1);
		if (slot.stale) this.staleInWindow++;
	}

	private evict(slot: Slot): void {
		const c = this.combos.get(slot.combo);
		if (c) {
			if (c.count <= 1) this.combos.delete(slot.combo);
			else {
				c.count--;
				c.first = this.nextIndexOfCombo(slot.combo, slot.index);
			}
		}
		if (slot.stale) this.staleInWindow--;
		if (slot.noNews) {
			const n = (this.noNewsByTarget.get(slot.target) ?? 1) - 1;
			if (n <= 0) this.noNewsByTarget.delete(slot.target);
			else this.noNewsByTarget.set(slot.target, n);
		}
	}

	/** The earliest index of a combo still in the window after `after` leaves it. */
	private nextIndexOfCombo(combo: string, after: number): number {
		let best = Number.POSITIVE_INFINITY;
		for (const s of this.ring) if (s.combo === combo && s.index > after && s.index < best) best = s.index;
		return Number.isFinite(best) ? best : after;
	}

	private firstStaleIndex(): number {
		let best = Number.POSITIVE_INFINITY;
		for (const s of this.ring) if (s.stale && s.index < best) best = s.index;
		return Number.isFinite(best) ? best : 0;
	}

	private seenBefore(subjects: string[], outcome: string): boolean {
		let seen = false;
		for (const subject of subjects) {
			let outcomes = this.subjects.get(subject);
			if (outcomes) this.subjects.delete(subject);
			else outcomes = new Set();
			if (outcomes.has(outcome)) seen = true;
			else if (outcomes.size < MAX_OUTCOMES_PER_CALL) outcomes.add(outcome);
			this.subjects.set(subject, outcomes);
			if (this.subjects.size > MAX_SUBJECTS) this.subjects.delete(this.subjects.keys().next().value as string);
		}
		return seen;
	}

	private checkRun(combo: string, index: number): { count: number; first: number } {
		let runs = this.checkRuns.get(combo);
		if (runs) runs.count++;
		else {
			runs = { count: 1, first: index };
			this.checkRuns.set(combo, runs);
		}
		if (this.checkRuns.size > MAX_TALLIES) this.checkRuns.delete(this.checkRuns.keys().next().value as string);
		return runs;
	}

	private pollStreak(callHash: string, outcome: string, index: number): { count: number; first: number } {
		const streak = this.streaks.get(callHash);
		if (streak && streak.outcome === outcome) streak.count++;
		else this.streaks.set(callHash, { outcome, count: 1, first: index });
		if (this.streaks.size > MAX_TALLIES) this.streaks.delete(this.streaks.keys().next().value as string);
		return this.streaks.get(callHash) as { count: number; first: number };
	}

	private firstIndexOfTarget(target: string): number {
		let best = Number.POSITIVE_INFINITY;
		for (const s of this.ring) if (s.target === target && s.noNews && s.index < best) best = s.index;
		return Number.isFinite(best) ? best : 0;
	}

	private tally(callHash: string, stale: boolean, index: number): CallTally {
		let t = this.tallies.get(callHash);
		if (t)
			this.tallies.delete(callHash); // re-insert: most recently used last
		else t = { count: 0, stale: 0, first: index, last: index };
		t.count++;
		t.last = index;
		if (stale) t.stale++;
		this.tallies.set(callHash, t);
		if (this.tallies.size > MAX_TALLIES) this.tallies.delete(this.tallies.keys().next().value as string);
		return t;
	}

	private cycle(combo: string, call: ToolCallRecord, index: number): LoopSignal | undefined {
		this.recent.push({ combo, call, index });
		const need = this.thresholds.cycleRepeats;
		const keep = 3 * need + 1;
		if (this.recent.length > keep) this.recent.shift();
		for (const period of [2, 3]) {
			const span = period * need;
			const n = this.recent.length;
			// A cycle repeats its last call one period back: most calls fail this at once.
			if (n < span || this.recent[n - 1].combo !== this.recent[n - 1 - period].combo) continue;
			const tail = this.recent.slice(-span);
			const pattern = tail.slice(0, period).map((r) => r.combo);
			if (new Set(pattern).size !== period) continue;
			if (tail.every((r, i) => r.combo === pattern[i % period])) {
				return {
					kind: "cycle",
					key: `cycle:${[...pattern].sort().join("|")}`,
					subject: `cycle:${[...pattern].sort().join("|")}`,
					from: tail[0].index,
					to: index,
					count: need,
					...cycleText({
						labels: tail.slice(0, period).map((r) => describeCall(r.call)),
						rounds: need,
						first: tail[0].index,
						to: index,
					}),
					wayOut:
						"Break the cycle: none of these calls will answer differently. Decide from what they already showed, or try something different.",
				};
			}
		}
		return undefined;
	}
}
