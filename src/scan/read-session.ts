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
	/** The events in order; can be iterated once. */
	events: AsyncIterable<SessionEvent>;
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
	return { path, format, stats, events: stream(path, reader, head, PARSERS[format](stats)) };
}

async function* stream(
	path: string,
	reader: LineReader,
	head: string[],
	parser: SessionParser,
): AsyncGenerator<SessionEvent, void, unknown> {
	const out: SessionEvent[] = [];
	try {
		let lines: string[] | undefined = head;
		while (lines) {
			for (const line of lines) parser.line(line, out);
			if (out.length) {
				// Yield this batch's events, then reuse the array.
				for (const event of out) yield event;
				out.length = 0;
			}
			lines = await reader.next(path);
		}
		parser.end(out);
		for (const event of out) yield event;
	} finally {
		await reader.close();
	}
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
