// The cycle signal: a short cycle (A-B-A-B, A-B-C-A-B-C) of identical calls with identical
// results, repeated a set number of rounds. Only the last few calls are kept.
import type { ToolCallRecord } from "../transcript/index.ts";
import { cycleText } from "./loop-text.ts";
import { describeCall } from "./normalize.ts";
import type { LoopSignal } from "./signal.ts";

export class CycleWatch {
	private recent: Array<{ combo: string; call: ToolCallRecord; index: number }> = [];

	private readonly need: number;

	constructor(need: number) {
		this.need = need;
	}

	reset(): void {
		this.recent = [];
	}

	add(combo: string, call: ToolCallRecord, index: number): LoopSignal | undefined {
		this.recent.push({ combo, call, index });
		const need = this.need;
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
						"Break the cycle: none of these calls will answer differently. Decide from what they already showed, or " +
						"try something different.",
				};
			}
		}
		return undefined;
	}
}
