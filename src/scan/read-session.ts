// Reads a recorded session file of any supported format as a stream of SessionEvents.
import type { SessionEvent } from "../transcript/index.ts";
import { claudeCodeParser } from "./claude-code-format.ts";
import { claudeExportParser } from "./claude-export-format.ts";
import { codexParser } from "./codex-format.ts";
import { geminiParser } from "./gemini-format.ts";
import { DETECT_LINES, detectFormat, type SessionFormat, UNKNOWN_FORMAT } from "./formats.ts";
import { LineReader } from "./line-reader.ts";
import { newStats, type ScanStats } from "../transcript/index.ts";
import { piParser, piSubagentsParser } from "./pi-format.ts";
import type { SessionParser } from "./session-parser.ts";

export type { SessionFormat } from "./formats.ts";
export { detectFormat } from "./formats.ts";
export type { ScanStats } from "../transcript/index.ts";
export { fromPiToolCall, RESULT_CHARS } from "../transcript/index.ts";

export interface OpenedSession {
	path: string;
	format: SessionFormat;
	/** The events in order; can be iterated once (this or `batches`). */
	events: AsyncIterable<SessionEvent>;
	/**
	 * The same events in batches, those of each chunk of lines read: for a reader of every event, one await
	 * per batch rather than one per event (about 0.5 µs each). Can be iterated once (this or `events`).
	 */
	batches: AsyncIterable<SessionEvent[]>;
	/** Counts kept while reading (malformed lines skipped, calls without results, …); final once `events` is done. */
	stats: ScanStats;
}

const PARSERS: Record<SessionFormat, (stats: ScanStats) => SessionParser> = {
	pi: piParser,
	"pi-subagents": piSubagentsParser,
	"claude-code": claudeCodeParser,
	"claude-export": claudeExportParser,
	codex: codexParser,
	gemini: geminiParser,
};

/** Opens a session file and recognises its format. Throws a clear Error for an unreadable file or an unknown format. */
export async function openSession(path: string): Promise<OpenedSession> {
	const reader = await LineReader.open(path);
	const head: string[] = [];
	let nonEmpty = 0;
	try {
		while (nonEmpty < DETECT_LINES) {
			const lines = await reader.next(path);
			if (!lines) break;
			for (const line of lines) {
				head.push(line);
				if (line.trim()) nonEmpty++;
			}
		}
	} catch (err) {
		await reader.close();
		throw err;
	}
	const format = detectFormat(head);
	if (!format) {
		await reader.close();
		throw new Error(`${path}: ${UNKNOWN_FORMAT}`);
	}
	const stats = newStats();
	const batches = stream(path, reader, head, PARSERS[format](stats));
	return { path, format, stats, batches, events: eventsOf(batches) };
}

async function* stream(
	path: string,
	reader: LineReader,
	head: string[],
	parser: SessionParser,
): AsyncGenerator<SessionEvent[], void, unknown> {
	try {
		let lines: string[] | undefined = head;
		while (lines) {
			const out: SessionEvent[] = [];
			for (const line of lines) parser.line(line, out);
			if (out.length) yield out;
			lines = await reader.next(path);
		}
		const out: SessionEvent[] = [];
		parser.end(out);
		if (out.length) yield out;
	} finally {
		await reader.close();
	}
}

/** The batches' events one by one (stopping early stops the batches too, which closes the file). */
async function* eventsOf(batches: AsyncIterable<SessionEvent[]>): AsyncGenerator<SessionEvent, void, unknown> {
	for await (const batch of batches) yield* batch;
}

/** Streams a file's events in order. Throws a clear Error for an unreadable file or an unknown format. */
export async function* readSessionEvents(path: string): AsyncGenerator<SessionEvent, void, unknown> {
	const session = await openSession(path);
	yield* session.events;
}

/** The events of lines already in memory (a file's tail, read by the caller), in a known format. */
export function parseSessionLines(
	format: SessionFormat,
	lines: Iterable<string>,
): { events: SessionEvent[]; stats: ScanStats } {
	const stats = newStats();
	const parser = PARSERS[format](stats);
	const events: SessionEvent[] = [];
	for (const line of lines) parser.line(line, events);
	parser.end(events);
	return { events, stats };
}

/** A fresh reader of one format, fed lines one by one (its counts are its own). */
export function sessionParser(format: SessionFormat): SessionParser {
	return PARSERS[format](newStats());
}
