// Which lines of which files the agent has read since anything landed: a read of lines already
// read brings nothing new; a file read several times over is a loop; reading one file in
// chunks at different offsets is progress. Memory is bounded (files and ranges per file).
import type { ToolCallRecord } from "../transcript/index.ts";

/** Below this many lines read in all, rereading is not worth a signal. */
export const MIN_REREAD_LINES = 300;
const MAX_FILES = 64;
const MAX_RANGES = 64;

export interface FileReads {
	/** Merged, sorted [start, end] line intervals read. */
	ranges: Array<[number, number]>;
	total: number;
	first: number;
	last: number;
}

export class ReadCoverage {
	private files = new Map<string, FileReads>();

	clear(): void {
		this.files.clear();
	}

	/** Whether (almost all of) the lines this read asks for were read before. */
	alreadyRead(call: ToolCallRecord): boolean {
		const reads = this.files.get(call.path as string);
		if (!reads) return false;
		const [a, b] = rangeOf(call);
		let covered = 0;
		for (const [x, y] of reads.ranges) covered += Math.max(0, Math.min(b, y) - Math.max(a, x) + 1);
		return covered >= (b - a + 1) * 0.8;
	}

	record(call: ToolCallRecord): FileReads & { unique: number } {
		const path = call.path as string;
		let reads = this.files.get(path);
		if (reads)
			this.files.delete(path); // re-insert: most recently used last
		else reads = { ranges: [], total: 0, first: call.index, last: call.index };
		const [a, b] = rangeOf(call);
		reads.total += b - a + 1;
		reads.last = call.index;
		reads.ranges = mergeRange(reads.ranges, [a, b]).slice(-MAX_RANGES);
		this.files.set(path, reads);
		if (this.files.size > MAX_FILES) this.files.delete(this.files.keys().next().value as string);
		return { ...reads, unique: reads.ranges.reduce((sum, [x, y]) => sum + y - x + 1, 0) };
	}
}

/** The lines a read covers: offset/limit when given, else as many lines as it returned. */
function rangeOf(call: ToolCallRecord): [number, number] {
	const start = Math.max(1, call.offset ?? 1);
	const lines = call.limit ?? Math.max(1, countLines(call.result));
	return [start, start + lines - 1];
}

function countLines(text: string): number {
	let n = 1;
	for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
	return n;
}

function mergeRange(ranges: Array<[number, number]>, next: [number, number]): Array<[number, number]> {
	const all = [...ranges, next].sort((x, y) => x[0] - y[0]);
	const out: Array<[number, number]> = [];
	for (const r of all) {
		const last = out[out.length - 1];
		if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
		else out.push([r[0], r[1]]);
	}
	return out;
}
