// Synthetic but realistic streams of coding-agent tool calls, for the benchmarks (not a benchmark
// itself: run.mjs only runs *.bench.ts). Deterministic for a seed, and lazy: calls are made one
// at a time, so a stream of any length costs no memory beyond the call in hand.
//
// The agent works on a TypeScript repository of a few hundred files. It alternates between
// phases of work, where edits land and commits go in every few dozen calls, and long stuck
// phases (thousands of calls) where nothing lands: chunked reads of new files, re-reads of the
// same ranges, test runs whose failure does not change (timestamps and durations do), polls
// that answer the same thing, A-B cycles, one command hammered, edits that fail or change
// nothing, `git commit` with nothing to commit. Tool names and results follow Pi's tools
// (read, bash, grep, find, ls, edit, write) and pi-subagents (subagent/intercom), plus
// BashOutput polls; outputs are full tool outputs (a read can be 50 KB), not yet cut to the
// RESULT_CHARS a recorder keeps.
//
// This file holds the schedule (which calls fall in a stuck phase), the pick of the next episode and
// the stream; the kinds of calls are in synthetic-episodes.ts, the agent's state and the tools'
// outputs in synthetic-results.ts, its vocabulary in synthetic-vocab.ts.

import { Episodes } from "./synthetic-episodes.ts";
import type { RawCall, StreamOptions } from "./synthetic-results.ts";
import { int, type Phase } from "./synthetic-vocab.ts";

export type { RawCall, StreamOptions } from "./synthetic-results.ts";

class Agent extends Episodes {
	private phases: Phase[] = [];

	constructor(opts: StreamOptions) {
		super(opts);
		this.phases.push({ end: this.opts.firstWork, stuck: false });
	}

	/** Whether a call at index i is in a stuck phase (nothing lands). */
	stuck(i: number): boolean {
		for (const [a, b] of this.opts.stuckZones) if (i >= a && i < b) return true;
		while (this.phases[this.phases.length - 1].end <= i) {
			const last = this.phases[this.phases.length - 1];
			const [lo, hi] = last.stuck ? this.opts.workLength : this.opts.stuckLength;
			this.phases.push({ end: last.end + int(this.r, lo, hi), stuck: !last.stuck });
		}
		if (this.phases.length > 4) this.phases.splice(0, this.phases.length - 4);
		for (const p of this.phases) if (i < p.end) return p.stuck;
		return false;
	}

	/** The next episode: a few calls that belong together. */
	episode(): RawCall[] {
		const stuck = this.stuck(this.index);
		const r = this.r;
		const calls: RawCall[] = [];
		const add = (c: RawCall) => {
			calls.push(c);
			this.index++;
			this.clock += int(r, 800, 40_000);
		};
		const w = r();
		if (!stuck) {
			if (w < 0.24) this.explore(add);
			else if (w < 0.38) this.greps(add, false);
			else if (w < 0.5) this.misc(add);
			else if (w < 0.61) this.testRuns(add, false);
			else if (w < 0.73) this.edit(add, true);
			else if (w < 0.76) this.edit(add, false);
			else if (w < 0.81) this.polls(add, false);
			else if (w < 0.84) this.commit(add);
			else if (w < 0.9) this.listing(add);
			else if (w < 0.94) this.other(add);
			else if (w < 0.97) this.hammer(add);
			else this.reread(add);
		} else {
			if (w < 0.15) this.explore(add);
			else if (w < 0.27) this.reread(add);
			else if (w < 0.39) this.testRuns(add, true);
			else if (w < 0.44) this.testRuns(add, false);
			else if (w < 0.57) this.greps(add, true);
			else if (w < 0.62) this.polls(add, true);
			else if (w < 0.64) this.polls(add, false);
			else if (w < 0.72) this.cycle(add);
			else if (w < 0.75) this.hammer(add);
			else if (w < 0.81) this.edit(add, false);
			else if (w < 0.83) this.commit(add);
			else if (w < 0.86) this.rtkLog(add);
			else if (w < 0.94) this.misc(add);
			else if (w < 0.97) this.listing(add);
			else this.other(add);
		}
		return calls;
	}
}

/** An endless stream of calls. */
export function* callStream(opts: StreamOptions): Generator<RawCall, never, unknown> {
	const agent = new Agent(opts);
	for (;;) for (const call of agent.episode()) yield call;
}

/** The first n calls of a stream. */
export function* take<T>(stream: Iterator<T>, n: number): Generator<T, void, unknown> {
	for (let i = 0; i < n; i++) {
		const next = stream.next();
		if (next.done) return;
		yield next.value;
	}
}
