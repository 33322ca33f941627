// The loop detector: fed every tool call, no model involved, constant work per call and
// memory bounded by the window. It notices an agent that repeats itself without getting
// anywhere, and forgets everything once something lands (an edit that changed a file, a
// commit) or a real user prompt arrives. Progress is not a loop: chunked reads of one file
// at different offsets, polling whose output changes, steady work across many files.
import { isCheckCommand, mayChangeFiles } from "./checks.ts";
import { callSignature, describeCall, landed, outcomeText, shortHash, subjectsOf, targetOf } from "./normalize.ts";
import { CallWindow } from "./call-window.ts";
import { CycleWatch } from "./cycles.ts";
import { FailedRuns, failed, retrySignal } from "./retries.ts";
import { TextLoops } from "./text-loops.ts";
import { dominantText, repeatText, rereadText, rerunText, staleText, targetText } from "./loop-text.ts";
import { MIN_REREAD_LINES, ReadCoverage } from "./read-coverage.ts";
import { Restating, sentencesOf } from "./restating.ts";
import { DEFAULT_THRESHOLDS, type LoopSignal, type LoopThresholds } from "./signal.ts";
import type { ToolCallRecord } from "../transcript/index.ts";
import { WAIT_POLL_FACTOR, Waiting, waitingSignal, waitOf } from "./waiting.ts";

export { DEFAULT_THRESHOLDS, type LoopSignal, type LoopThresholds, type SignalKind, WEAK_SIGNALS } from "./signal.ts";

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
	private readonly win: CallWindow;
	private readonly cycles: CycleWatch;
	private tallies = new Map<string, CallTally>();
	private reads = new ReadCoverage();
	/** Outcomes each subject (a file, a command) has produced since the last landing. */
	private subjects = new Map<string, Set<string>>();
	/** Polls: the current run of identical answers per call. */
	private streaks = new Map<string, { outcome: string; count: number; first: number }>();
	private callsSinceLanding = 0;
	/** Checks run since the last landing: call + outcome → runs. */
	private checkRuns = new Map<string, { count: number; first: number }>();
	private readonly waiting = new Waiting();
	private readonly restating = new Restating();
	private readonly text = new TextLoops();
	/** Failing runs per command since the last landing or file-changing command. */
	private readonly failures = new FailedRuns();
	private lastIndex = -1;
	calls = 0;
	lastLanded?: number;

	constructor(thresholds: Partial<LoopThresholds> = {}, options: { readOnly?: boolean } = {}) {
		this.thresholds = { ...DEFAULT_THRESHOLDS, ...thresholds };
		this.readOnly = options.readOnly ?? false;
		this.win = new CallWindow(this.thresholds.window);
		this.cycles = new CycleWatch(this.thresholds.cycleRepeats);
	}

	/** Forget everything (a real user prompt, or something landed). */
	reset(): void {
		this.win.clear();
		this.tallies.clear();
		this.reads.clear();
		this.subjects.clear();
		this.streaks.clear();
		this.checkRuns.clear();
		this.cycles.reset();
		this.callsSinceLanding = 0;
		this.waiting.reset();
		this.restating.reset();
		this.text.reset();
		this.failures.clear();
	}

	/** Feeds one call; returns the signals that hold after it (the caller decides what is new). */
	add(call: ToolCallRecord): LoopSignal[] {
		this.calls++;
		this.lastIndex = call.index;
		this.text.called();
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
		const known = this.win.combos.get(combo);
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
		this.win.push({ index: call.index, call: callHash, combo, target, noNews, stale: noNews && call.kind !== "read" });

		const signals: LoopSignal[] = [];

		// 1. The same call with the same outcome, again and again. A poll counts only while its
		// answer stays the same: polling whose output changes is progress.
		const c = streak ?? this.win.combos.get(combo);
		if (patience.kind === "over") signals.push(waitingSignal(call, callHash, labelOf(), patience.polls, t));
		// An error answer comes back at once and cannot change by asking again: it counts sooner.
		else if (!patient && c && c.count >= (call.isError && !streak ? t.errorRepeats : t.repeats)) {
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
					window: Math.min(this.win.length, t.window),
					threshold: call.isError && !streak ? t.errorRepeats : t.repeats,
				}),
				wayOut:
					call.kind === "poll"
						? "Stop polling the same status: wait longer between checks, or read the process's log once and decide " +
							"whether it is stuck."
						: "Stop repeating this call: its result will not change. Use the result you already have and take the " +
							"next step.",
			});
		}

		// 1b. A check run again with the same result while nothing has landed: it cannot tell
		// anything new until something changes.
		const command = call.kind === "bash" && call.command !== undefined ? signature.slice("bash ".length) : undefined;
		// A command that may have written files (a redirect, sed -i, git checkout…) is not a
		// landing the detector can see, but the checks may answer differently after it.
		if (command !== undefined && mayChangeFiles(command)) {
			this.checkRuns.clear();
			this.failures.clear();
		} else if (command !== undefined) {
			const retry = this.failures.add(callHash, resultHash, !failed(call), call.index);
			if (retry && retry.count >= t.failRepeats)
				signals.push(retrySignal(retry, callHash, labelOf(), call.index, t.failRepeats));
		}
		if (command !== undefined && !mayChangeFiles(command) && isCheckCommand(command)) {
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
						"Do not run this check again until you have changed something: it will say the same. Act on its result " +
						"(fix what it reports), or report it as it stands.",
				});
			}
		}

		// 2. One target worked on without new results.
		const hits = this.win.noNewsByTarget.get(target) ?? 0;
		const limit = this.readOnly ? t.readOnlyTargetHits : t.targetHits;
		if (hits >= limit) {
			const from = this.win.firstIndexOfTarget(target);
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
					window: Math.min(this.win.length, t.window),
					threshold: limit,
				}),
				wayOut:
					"You already have what this gives you. Write down what you learned, decide, and act on it (an edit, a test " +
					"run, or a question to the user).",
			});
		}

		// 2b. Many calls in the window that told the agent nothing new, whatever they were.
		if (this.win.staleInWindow >= t.staleCalls) {
			const from = this.win.firstStaleIndex();
			signals.push({
				kind: "stale",
				key: "stale",
				subject: "stale",
				from,
				to: call.index,
				count: this.win.staleInWindow,
				...staleText({
					count: this.win.staleInWindow,
					window: this.win.length,
					first: from,
					to: call.index,
					latest: labelOf(),
					threshold: t.staleCalls,
				}),
				wayOut:
					"The investigation has stopped producing information. Act on what you know (make the change, run the one " +
					"check that decides it), or ask the user.",
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
					"This call is not moving the work forward. Change approach: make the smallest edit that tests your current " +
					"idea, or ask the user.",
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
		const cycle = this.cycles.add(combo, call, call.index);
		if (cycle && !patient) signals.push(cycle);
		return signals;
	}

	/** An assistant message's visible text (restating.ts): the signal when it restates itself. */
	said(text: string): LoopSignal[] {
		// Both read the message's sentences: split once.
		const sentences = sentencesOf(text);
		return [
			...this.restating.add(text, this.lastIndex, this.thresholds.restateRepeats, sentences),
			...this.text.said(text, this.lastIndex, this.thresholds.sameAnswers, sentences),
		];
	}

	/** The context was compacted, or a turn ended on a context-overflow error. */
	compacted(overflow = false): LoopSignal[] {
		return this.text.compacted(overflow, this.lastIndex, this.thresholds.compactions);
	}

	/** What the detector is watching, for status. */
	snapshot(): { calls: number; windowFill: number; callsSinceLanding: number; lastLanded?: number } {
		return {
			calls: this.calls,
			windowFill: this.win.length,
			callsSinceLanding: this.callsSinceLanding,
			...(this.lastLanded !== undefined ? { lastLanded: this.lastLanded } : {}),
		};
	}

	private seenBefore(subjects: readonly string[], outcome: string): boolean {
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
}
