// The history log: `<agentDir>/watchdog/history.jsonl`, one line per event, shared by every
// Pi process of one agent folder. Each line goes down in one write to a descriptor opened with
// O_APPEND, so lines from concurrent processes interleave whole and never tear. Past
// `history.maxBytes` the file becomes `history.1.jsonl` (the one old file kept). Appending never
// throws: the caller gets a result, because a history line must never cost the user a review.
import {
	closeSync,
	constants,
	fstatSync,
	lstatSync,
	mkdirSync,
	openSync,
	readSync,
	renameSync,
	statSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import { join } from "node:path";
import { eventLine, type HistoryEventInput } from "./history-event.ts";
import type { HistoryFilter } from "./history-filter.ts";
import { type HistoryRead, readHistory } from "./history-read.ts";

export const HISTORY_FILE = "history.jsonl";
export const OLD_HISTORY_FILE = "history.1.jsonl";
const ROTATE_LOCK = "history.rotate.lock";
export const DEFAULT_MAX_BYTES = 10_485_760;
/** A rotation lock older than this was left by a process that died while rotating. */
const STALE_LOCK_MS = 30_000;

export type AppendResult = { ok: true; rotated: boolean } | { ok: false; error: string };

/** The folder that holds the log. */
export function historyDir(agentDir: string): string {
	return join(agentDir, "watchdog");
}

// O_NOFOLLOW: a link planted at the log's name is refused, not written through. O_NONBLOCK: a
// FIFO planted there fails to open (no reader) instead of hanging. O_RDWR: to look at the last byte.
const APPEND_FLAGS =
	constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Appends one event to the log in `dir`; rotates when the file has passed `maxBytes`. */
export function appendHistory(
	dir: string,
	event: HistoryEventInput,
	options: { maxBytes?: number; now?: Date } = {},
): AppendResult {
	const shaped = eventLine(event, options.now ?? new Date());
	if (!shaped.ok) return shaped;
	const path = join(dir, HISTORY_FILE);
	let fd: number | undefined;
	try {
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		fd = openSync(path, APPEND_FLAGS, 0o600);
		const before = fstatSync(fd);
		if (!before.isFile()) return { ok: false, error: `${path} is not a regular file; nothing was written to it` };
		// A line cut short by a crash would swallow the start of ours: begin on a fresh line.
		const line = before.size > 0 && lastByte(fd, before.size) !== 0x0a ? `\n${shaped.line}` : shaped.line;
		const bytes = Buffer.from(line);
		const written = writeSync(fd, bytes);
		if (written !== bytes.length)
			return { ok: false, error: `${path}: only ${written} of ${bytes.length} bytes were written` };
		const size = fstatSync(fd).size;
		const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
		return { ok: true, rotated: size > maxBytes ? rotateIfFull(dir, maxBytes) : false };
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ELOOP") return { ok: false, error: `${path} is a symbolic link; nothing was written through it` };
		if (code === "ENXIO") return { ok: false, error: `${path} is a FIFO or device; nothing was written to it` };
		return { ok: false, error: `${path}: ${(error as Error).message}` };
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

function lastByte(fd: number, size: number): number {
	const one = Buffer.alloc(1);
	return readSync(fd, one, 0, 1, size - 1) === 1 ? one[0] : 0x0a;
}

/**
 * Renames the full log to the old one. Two processes may see it full at once: only the one that
 * holds the lock renames, and only after seeing, under the lock, that the file at the log's name
 * is still over the limit. Without that second look the later one would rename the fresh log
 * over the old one just made, losing a whole file's worth of lines.
 */
export function rotateIfFull(dir: string, maxBytes: number): boolean {
	const lock = join(dir, ROTATE_LOCK);
	if (!takeLock(lock)) return false; // someone else is rotating; our line is in either file
	try {
		const current = join(dir, HISTORY_FILE);
		const st = lstatSync(current);
		if (!st.isFile() || st.size <= maxBytes) return false;
		renameSync(current, join(dir, OLD_HISTORY_FILE));
		return true;
	} catch {
		return false; // the log stays as it is and the next append tries again
	} finally {
		try {
			unlinkSync(lock);
		} catch {
			// already gone
		}
	}
}

function takeLock(lock: string): boolean {
	for (let attempt = 0; attempt < 2; attempt++) {
		try {
			closeSync(openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
			return true;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
			if (!isStale(lock)) return false;
			try {
				unlinkSync(lock);
			} catch {
				return false;
			}
		}
	}
	return false;
}

function isStale(lock: string): boolean {
	try {
		return Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS;
	} catch {
		return false;
	}
}

export interface HistoryLogOptions {
	/** Pi's agent folder (`getAgentDir`), asked each time so tests and forks can move it. */
	agentDir: () => string;
	/** `history.maxBytes` from the settings in effect. */
	maxBytes?: () => number;
}

/** The log of one agent folder, for a writer (the findings sink) and readers alike. */
export class HistoryLog {
	private readonly options: HistoryLogOptions;

	constructor(options: HistoryLogOptions) {
		this.options = options;
	}

	dir(): string {
		return historyDir(this.options.agentDir());
	}

	append(event: HistoryEventInput): AppendResult {
		try {
			return appendHistory(this.dir(), event, { maxBytes: this.options.maxBytes?.() });
		} catch (error) {
			// The callbacks are the caller's; even they must not throw through.
			return { ok: false, error: (error as Error).message };
		}
	}

	read(filter: HistoryFilter = {}): Promise<HistoryRead> {
		return readHistory(this.dir(), filter);
	}
}
