// Reads a file as lines in large chunks. Newlines are found in the bytes and each line is
// decoded on its own: a newline byte never occurs inside a UTF-8 character, so nothing is
// split wrongly, and an ASCII line stays a one-byte string (cheaper to decode and to parse)
// even when other lines are not. A long line is never rescanned.
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";

const CHUNK_BYTES = 1 << 20;
const NL = 10;
const CR = 13;

export class LineReader {
	private handle: FileHandle;
	/**
	 * Two buffers: the next chunk is read into one (off the main thread) while the lines of the
	 * other are found and decoded. Only one read is ever outstanding, so the file is read in order.
	 */
	private buffers = [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)];
	private turn = 0;
	private pending?: Promise<number>;
	/** The start of a line that continues in the next chunk (copied out of the reused buffer). */
	private partial: Buffer[] = [];
	private done = false;

	private constructor(handle: FileHandle) {
		this.handle = handle;
	}

	/**
	 * Opens the file; the error names the file and the reason. The open does not block (a FIFO
	 * would wait for a writer) and only a regular file is kept.
	 */
	static async open(path: string): Promise<LineReader> {
		let handle: FileHandle;
		try {
			handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
		} catch (err) {
			throw new Error(`${path}: cannot read the file (${reason(err)})`);
		}
		const stats = await handle.stat().catch(() => undefined);
		if (!stats?.isFile()) {
			await handle.close().catch(() => {});
			throw new Error(
				`${path}: cannot read the file (${stats?.isDirectory() ? "it is a directory" : "not a regular file"})`,
			);
		}
		return new LineReader(handle);
	}

	/** The next lines (without line endings), or undefined at the end of the file. */
	async next(path: string): Promise<string[] | undefined> {
		while (!this.done) {
			let bytes: number;
			const buf = this.buffers[this.turn] as Buffer;
			try {
				bytes = await (this.pending ?? this.read());
			} catch (err) {
				this.pending = undefined;
				await this.close();
				throw new Error(`${path}: cannot read the file (${reason(err)})`);
			}
			this.pending = undefined;
			const lines: string[] = [];
			if (bytes === 0) {
				if (this.partial.length) lines.push(decode(Buffer.concat(this.partial), 0, -1));
				this.partial = [];
				await this.close();
				return lines.length ? lines : undefined;
			}
			this.turn ^= 1;
			this.pending = this.read();
			// Its error, if any, is thrown by the next call; close() waits for it quietly.
			this.pending.catch(() => {});
			let start = 0;
			let nl = buf.indexOf(NL, 0);
			while (nl !== -1 && nl < bytes) {
				if (this.partial.length) {
					this.partial.push(buf.subarray(0, nl));
					lines.push(decode(Buffer.concat(this.partial), 0, -1));
					this.partial = [];
				} else lines.push(decode(buf, start, nl));
				start = nl + 1;
				nl = start < bytes ? buf.indexOf(NL, start) : -1;
			}
			if (start < bytes) this.partial.push(Buffer.from(buf.subarray(start, bytes)));
			if (lines.length) return lines;
		}
		return undefined;
	}

	async close(): Promise<void> {
		if (this.done) return;
		this.done = true;
		// A read still under way finishes before the handle closes.
		await this.pending?.catch(() => {});
		this.pending = undefined;
		await this.handle.close().catch(() => {});
	}

	/** Reads the next chunk into the current buffer; the bytes read (0 at the end). */
	private async read(): Promise<number> {
		const { bytesRead } = await this.handle.read(this.buffers[this.turn] as Buffer, 0, CHUNK_BYTES, null);
		return bytesRead;
	}
}

/** The line in buf[start, end) (end -1: to the buffer's end), without a trailing CR. */
function decode(buf: Buffer, start: number, end: number): string {
	let stop = end === -1 ? buf.length : end;
	if (stop > start && buf[stop - 1] === CR) stop--;
	return buf.toString("utf8", start, stop);
}

function reason(err: unknown): string {
	const e = err as { code?: unknown; message?: unknown };
	if (e && typeof e.code === "string") {
		const known: Record<string, string> = {
			ENOENT: "no such file",
			EISDIR: "it is a directory",
			EACCES: "permission denied",
			EPERM: "permission denied",
		};
		return known[e.code] ?? (typeof e.message === "string" ? e.message : e.code);
	}
	return err instanceof Error ? err.message : String(err);
}
