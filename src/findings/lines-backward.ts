// A file's lines from the last to the first, read in large chunks from the end. Newlines are
// found in the bytes and each line decoded on its own (a newline byte never occurs inside a
// UTF-8 character). A line longer than `maxLine` bytes is not ours: it is reported as null once
// instead of being held in memory whole.
import type { FileHandle } from "node:fs/promises";

const CHUNK_BYTES = 256 * 1024;
const NL = 0x0a;

/** Batches of lines, each batch and the whole sequence newest (last in the file) first. */
export async function* chunksBackward(
	handle: FileHandle,
	size: number,
	maxLine = 64 * 1024,
): AsyncGenerator<Array<string | null>> {
	let pos = size;
	/** The start of the file's later part that precedes its first newline: the end of a line that starts earlier. */
	let tail: Buffer = Buffer.alloc(0);
	let overlong = false;
	const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
	while (pos > 0) {
		const want = Math.min(CHUNK_BYTES, pos);
		pos -= want;
		const { bytesRead } = await handle.read(chunk, 0, want, pos);
		// A file that shrank under us (truncated by someone else): stop rather than read garbage.
		if (bytesRead < want) return;
		const lines: Array<string | null> = [];
		let end = want; // exclusive end, in `chunk`, of the line being closed
		let nl = chunk.lastIndexOf(NL, end - 1);
		while (nl !== -1) {
			if (end === want) {
				lines.push(overlong ? null : decode(Buffer.concat([chunk.subarray(nl + 1, want), tail])));
				tail = Buffer.alloc(0);
				overlong = false;
			} else lines.push(decode(chunk.subarray(nl + 1, end)));
			end = nl;
			nl = nl > 0 ? chunk.lastIndexOf(NL, nl - 1) : -1;
		}
		if (end === want) {
			// No newline in the whole chunk: it is all the middle of one line.
			if (!overlong) tail = Buffer.concat([chunk.subarray(0, want), tail]);
		} else tail = Buffer.from(chunk.subarray(0, end));
		if (tail.length > maxLine) {
			overlong = true;
			tail = Buffer.alloc(0);
		}
		if (lines.length) yield lines;
	}
	if (overlong) yield [null];
	else if (tail.length) yield [decode(tail)];
}

function decode(bytes: Buffer): string {
	return bytes.toString("utf8");
}
