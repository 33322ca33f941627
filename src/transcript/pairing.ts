// Pairs recorded tool calls with their results by id. A call becomes a record when its
// result arrives, numbered in that order. A call that never gets one comes out with an empty
// result as soon as that is certain: when a call of a later assistant turn is answered (a
// turn starts only once the previous one's results are in), or at the end of the file.
import { makeCallRecord } from "./call-record.ts";
import type { NestedCall } from "./nested.ts";
import type { SessionEvent, ToolCallRecord } from "./tool-call.ts";

/** What a reader counts while it reads, for the scan's report. */
export interface ScanStats {
	/** Non-empty lines read (Markdown: sections). */
	lines: number;
	/** Lines (Markdown: sections) that could not be parsed and were skipped. */
	malformed: number;
	/** Tool calls emitted. */
	calls: number;
	/** Calls that never got a result (emitted with an empty result once abandoned, or at the end). */
	unanswered: number;
	/** Results whose call was never seen. */
	orphanResults: number;
	/** Calls whose id had already appeared earlier in the file (a replayed branch, or a reused id). */
	repeatedIds: number;
	/** Lines of a type the reader does not use (metadata, newer types), skipped. */
	otherLines: number;
}

export function newStats(): ScanStats {
	return { lines: 0, malformed: 0, calls: 0, unanswered: 0, orphanResults: 0, repeatedIds: 0, otherLines: 0 };
}

interface Pending {
	seq: number;
	turn: number;
	name: string;
	args: unknown;
}

export class CallPairer {
	// Several calls can be waiting under one id: some models reuse ids ("functions.bash:2"),
	// and exports replay branches. They are answered first come, first served.
	private pending = new Map<string, Pending[]>();
	private seen = new Set<string>();
	private seq = 0;
	private turn = 0;
	private waiting = 0;
	private next = 0;
	private stats: ScanStats;

	constructor(stats: ScanStats) {
		this.stats = stats;
	}

	/** A new assistant message (turn) begins; its calls come after every earlier one's results. */
	newTurn(): void {
		this.turn++;
	}

	call(id: unknown, name: unknown, args: unknown): void {
		const key = typeof id === "string" ? id : String(id ?? "");
		if (this.seen.has(key)) this.stats.repeatedIds++;
		else this.seen.add(key);
		const entry: Pending = { seq: this.seq++, turn: this.turn, name: typeof name === "string" ? name : "", args };
		this.waiting++;
		const queue = this.pending.get(key);
		if (queue) queue.push(entry);
		else this.pending.set(key, [entry]);
	}

	/** The tool name of the call a result for `id` would answer. */
	nameOf(id: unknown): string | undefined {
		return this.pending.get(typeof id === "string" ? id : String(id ?? ""))?.[0]?.name;
	}

	/**
	 * The result for `id`; `result` is already cut to size. `nested`: the calls this one made
	 * through other tools (codemode), which come out first: they ran before it finished.
	 */
	result(
		id: unknown,
		result: string,
		isError: boolean,
		editEvidence: boolean | undefined,
		out: SessionEvent[],
		nested: readonly NestedCall[] = [],
	): void {
		const entry = this.take(id, out);
		if (!entry) return;
		for (const n of nested)
			out.push({
				type: "call",
				call: this.record({ ...entry, name: n.name, args: n.args }, n.result, n.isError, undefined),
			});
		out.push({ type: "call", call: this.record(entry, result, isError, editEvidence) });
	}

	/** A result that answers `id` but records nothing (a call cancelled before it ran). */
	drop(id: unknown, out: SessionEvent[]): void {
		this.take(id, out);
	}

	/** The waiting call `id` answers, taken off the queue (the calls of earlier turns it proves abandoned come out). */
	private take(id: unknown, out: SessionEvent[]): Pending | undefined {
		const key = typeof id === "string" ? id : String(id ?? "");
		const queue = this.pending.get(key);
		const entry = queue?.shift();
		if (!entry) {
			this.stats.orphanResults++;
			return undefined;
		}
		if (queue && queue.length === 0) this.pending.delete(key);
		this.waiting--;
		if (this.waiting > 0) this.abandonBefore(entry.turn, out);
		return entry;
	}

	/** End of the session: the calls still waiting, in the order they were made. */
	flush(out: SessionEvent[]): void {
		this.abandonBefore(Number.POSITIVE_INFINITY, out);
	}

	/** Emits the calls of turns before `turn` that are still waiting: they will get no result. */
	private abandonBefore(turn: number, out: SessionEvent[]): void {
		const left: Pending[] = [];
		for (const [key, queue] of this.pending) {
			// A queue is in call order, so its first entry is its oldest.
			if (queue[0].turn >= turn) continue;
			const keep = queue.filter((p) => p.turn >= turn);
			for (const p of queue) if (p.turn < turn) left.push(p);
			if (keep.length) this.pending.set(key, keep);
			else this.pending.delete(key);
		}
		if (!left.length) return;
		left.sort((a, b) => a.seq - b.seq);
		this.waiting -= left.length;
		for (const entry of left) {
			this.stats.unanswered++;
			// No result, so no evidence that an edit or write landed.
			out.push({ type: "call", call: this.record(entry, "", false, false) });
		}
	}

	private record(entry: Pending, result: string, isError: boolean, editEvidence: boolean | undefined): ToolCallRecord {
		this.stats.calls++;
		return makeCallRecord(this.next++, entry.name, entry.args, result, isError, editEvidence);
	}
}
