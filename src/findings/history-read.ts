// Reading the history log, newest first. The log is ours, but it lives in a folder an agent can
// write, so each file is opened the guarded way (a regular file only: a FIFO, device or link at
// its name is refused before anything waits on it) and a line that does not parse is counted
// and skipped, never fatal. Lines are in time order with `at` first, so the files are read from
// the end backwards in chunks and reading stops at the first line clearly older than wanted;
// only lines that pass the cheap raw-text tests are parsed.
import { constants, lstatSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";
import { asEvent, type HistoryEvent } from "./history-event.ts";
import {
	type HistoryFilter,
	type LineTest,
	lineTest,
	lineTime,
	matches,
	mayMatch,
	newestFirst,
} from "./history-filter.ts";
import { chunksBackward } from "./lines-backward.ts";

export interface HistoryRead {
	/** Newest first. */
	events: HistoryEvent[];
	/** Lines that could not be read as an event (corrupt, cut short, not JSON). */
	skipped: number;
	/** Files that were not read, and why. */
	refused: string[];
}

/**
 * Concurrent writers stamp `at` just before their write, so neighbouring lines can be out of
 * order by a moment; reading goes on this far past the first line older than wanted.
 */
const ORDER_SLACK_MS = 15 * 60_000;
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export async function readHistory(dir: string, filter: HistoryFilter = {}): Promise<HistoryRead> {
	const result: HistoryRead = { events: [], skipped: 0, refused: [] };
	const scan = new Scan(filter, result);
	// The current file first, then the old one: a rotation between the two opens shows up as
	// the same file twice, and the old one is then left out.
	const current = await openGuarded(join(dir, "history.jsonl"), result.refused);
	const old = await openGuarded(join(dir, "history.1.jsonl"), result.refused);
	try {
		if (current) await scan.file(current.handle, current.size);
		const same = current && old && current.dev === old.dev && current.ino === old.ino;
		if (old && !same && !scan.done) await scan.file(old.handle, old.size);
	} finally {
		await current?.handle.close().catch(() => {});
		await old?.handle.close().catch(() => {});
	}
	result.events = newestFirst(result.events);
	if (filter.limit !== undefined) result.events = result.events.slice(0, Math.max(0, filter.limit));
	return result;
}

/** The scan over both files, newest line first, with when to stop. */
class Scan {
	done = false;
	private readonly test: LineTest;
	private readonly sinceIso: string | undefined;
	private stopBefore: number;
	private readonly filter: HistoryFilter;
	private readonly result: HistoryRead;

	constructor(filter: HistoryFilter, result: HistoryRead) {
		this.filter = filter;
		this.result = result;
		this.test = lineTest(filter);
		this.sinceIso = filter.since && !Number.isNaN(filter.since.getTime()) ? filter.since.toISOString() : undefined;
		this.stopBefore = filter.since ? filter.since.getTime() - ORDER_SLACK_MS : Number.NEGATIVE_INFINITY;
	}

	async file(handle: FileHandle, size: number): Promise<void> {
		for await (const lines of chunksBackward(handle, size)) {
			for (const line of lines) {
				if (line === null)
					this.result.skipped++; // too long to be ours
				else this.line(line);
				if (this.done) return;
			}
		}
	}

	private line(line: string): void {
		if (line.length === 0 || line === "\r") return;
		const at = lineTime(line);
		if (at !== undefined) {
			if (Date.parse(at) < this.stopBefore) {
				this.done = true;
				return;
			}
			if (this.sinceIso !== undefined && at < this.sinceIso) return;
		}
		// A line cut short (a crash mid-write, a full disk) is known bad without parsing it.
		if (!endsAsObject(line)) {
			this.result.skipped++;
			return;
		}
		if (!mayMatch(line, this.test)) return;
		let event: HistoryEvent | undefined;
		try {
			event = asEvent(JSON.parse(line));
		} catch {
			event = undefined;
		}
		if (!event) {
			this.result.skipped++;
			return;
		}
		if (!matches(event, this.filter)) return;
		this.result.events.push(event);
		const limit = this.filter.limit;
		// Enough found: the newest `limit` are all at least as new as the oldest of these, so only
		// lines a moment older than that can still make the cut.
		if (limit !== undefined && this.result.events.length === limit) {
			const oldest = this.result.events.reduce((min, e) => Math.min(min, Date.parse(e.at)), Number.POSITIVE_INFINITY);
			this.stopBefore = Math.max(this.stopBefore, oldest - ORDER_SLACK_MS);
		}
	}
}

function endsAsObject(line: string): boolean {
	let end = line.length - 1;
	while (end >= 0 && (line[end] === "\r" || line[end] === " " || line[end] === "\t")) end--;
	return line[end] === "}";
}

interface Opened {
	handle: FileHandle;
	size: number;
	dev: number;
	ino: number;
}

/** Opens a log file only when it is a regular file; a missing one is simply not there. */
async function openGuarded(path: string, refused: string[]): Promise<Opened | undefined> {
	try {
		// Decided before opening: opening a device can have effects of its own.
		const seen = lstatSync(path);
		if (!seen.isFile()) {
			refused.push(`${path} is not a regular file; it was not read`);
			return undefined;
		}
		const handle = await open(path, READ_FLAGS);
		const st = await handle.stat();
		if (!st.isFile() || st.dev !== seen.dev || st.ino !== seen.ino) {
			await handle.close().catch(() => {});
			refused.push(`${path} changed while it was being opened; it was not read`);
			return undefined;
		}
		return { handle, size: st.size, dev: st.dev, ino: st.ino };
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code !== "ENOENT" && code !== "ENOTDIR") refused.push(`${path}: ${(error as Error).message}`);
		return undefined;
	}
}
