// A session file's head and tail, read through the guarded reader (regular files only, no link
// out of the folder, bounded bytes), parsed by scan's format readers into the events the
// classifier reads, plus what the view shows: id, cwd, start, model, name, first prompt.
import type { Stats } from "node:fs";
import { detectFormat, type SessionFormat, sessionParser } from "../scan/index.ts";
import type { SessionEvent } from "../transcript/index.ts";
import { isPlainObject, readFileInRoot } from "../util/index.ts";
import { stretchEvents } from "./stretch.ts";

export const TAIL_BYTES = 64 * 1024;
/** One retry when the tail held no whole entry (a single huge tool result). */
const WIDE_TAIL_BYTES = 512 * 1024;
/** The header, the first model and the first prompt are at the start. */
const HEAD_BYTES = 8 * 1024;
/** Lines of the head looked at for them. */
const HEAD_LINES = 60;

export interface TailRead {
	format: SessionFormat;
	events: SessionEvent[];
	id?: string;
	cwd?: string;
	startedAt?: string;
	model?: string;
	name?: string;
	firstPrompt?: string;
	/** Lines that did not parse (a half-written last line, corruption). */
	malformed: number;
	/** Only the end of the file was read. */
	cut: boolean;
}

export type TailResult = { ok: true; read: TailRead } | { ok: false; reason: string };

/** Where a file is: its folder, and what the caller already knows of it (see SafeReadOptions). */
export interface TailPlace {
	root: string;
	/** The root's real path when the caller resolved it once for many files. */
	realRoot?: string;
	/** The file's lstat from the listing. */
	listed?: Stats;
}

export function readTail(path: string, place: TailPlace, tailBytes = TAIL_BYTES): TailResult {
	const first = readOnce(path, place, tailBytes);
	if (first.ok && !first.read.events.length && first.cut) return readOnce(path, place, WIDE_TAIL_BYTES);
	return first;
}

function readOnce(path: string, place: TailPlace, tailBytes: number): TailResult & { cut?: boolean } {
	// One open for both ends: the head only when the tail does not reach back to it.
	const tail = readFileInRoot(path, {
		...place,
		maxBytes: tailBytes,
		overLimit: "tail",
		headBytes: HEAD_BYTES,
		hash: false,
	});
	if (tail.state === "missing") return { ok: false, reason: "gone during the pass" };
	if (tail.state === "refused") return { ok: false, reason: tail.reason };
	const cut = tail.truncated;
	const tailLines = tail.text.split("\n");
	let headLines = tailLines;
	if (cut) {
		headLines = (tail.head ?? "").split("\n");
		if (headLines.length > 1) headLines.pop(); // the last line is cut
		tailLines.shift(); // starts mid-line
	}
	const format = detectFormat(headLines);
	if (!format) return { ok: false, reason: "not a recognised session format" };
	const stretch = stretchEvents(format, tailLines);
	const read: TailRead = { format, events: stretch.events, malformed: stretch.malformed, cut };
	const parsedByHead = headFacts(format, headLines, read);
	tailFacts(format, tailLines, read, headLines === tailLines ? parsedByHead : -1);
	return { ok: true, read, cut };
}

/**
 * Id, cwd, start and first prompt from the first lines; stops as soon as it has them. Returns the
 * last line it parsed for them (-1: none).
 */
function headFacts(format: SessionFormat, lines: string[], read: TailRead): number {
	const parser = sessionParser(format);
	const events: SessionEvent[] = [];
	let parsed = -1;
	for (let i = 0; i < lines.length && i < HEAD_LINES; i++) {
		const line = lines[i] as string;
		if (!read.cwd || !read.id || !read.startedAt || (format === "pi" && !read.model)) {
			const o = parse(line);
			if (o) headLine(o, read);
			parsed = i;
		}
		const seen = events.length;
		parser.line(line, events);
		// Only the events this line added can be the first prompt.
		for (let k = seen; k < events.length; k++) {
			const event = events[k] as SessionEvent;
			if (event.type === "prompt") {
				read.firstPrompt = event.text;
				return parsed;
			}
		}
	}
	return parsed;
}

function headLine(o: Record<string, unknown>, read: TailRead): void {
	if (o.type === "session" && typeof o.id === "string") {
		read.id = o.id;
		if (typeof o.cwd === "string") read.cwd = o.cwd;
		if (typeof o.timestamp === "string") read.startedAt = o.timestamp;
	}
	if (typeof o.sessionId === "string" && !read.id) read.id = o.sessionId;
	if (typeof o.cwd === "string" && !read.cwd) read.cwd = o.cwd;
	if (typeof o.timestamp === "string" && !read.startedAt) read.startedAt = o.timestamp;
	if (o.type === "model_change" && typeof o.provider === "string" && typeof o.modelId === "string")
		read.model = `${o.provider}/${o.modelId}`;
}

/**
 * The latest model and name, from the tail's last lines that can hold them (never a scan of every
 * byte). `parsedByHead`: in a file read whole, the last of its lines headFacts has already applied.
 */
function tailFacts(format: SessionFormat, lines: string[], read: TailRead, parsedByHead: number): void {
	const pi = format === "pi";
	let model = false;
	let name = !pi;
	for (let i = lines.length - 1; i >= 0 && !(model && name); i--) {
		const line = lines[i] as string;
		if (pi) {
			// Pi writes `type` first: a prefix says what the line is.
			if (!model && line.startsWith('{"type":"model_change"')) {
				model = true;
				// The latest change is one the head applied last already (it applied every one before it too).
				if (i <= parsedByHead) continue;
				const o = parse(line);
				if (typeof o?.provider === "string" && typeof o.modelId === "string") read.model = `${o.provider}/${o.modelId}`;
			} else if (!name && line.startsWith('{"type":"session_info"')) {
				const o = parse(line);
				if (typeof o?.name === "string" && o.name.trim()) read.name = o.name;
				name = true;
			}
		} else if (!model && line.includes('"type":"assistant"')) {
			const message = parse(line)?.message;
			if (isPlainObject(message) && typeof message.model === "string") read.model = message.model;
			model = true;
		}
	}
}

function parse(line: string): Record<string, unknown> | undefined {
	if (!line.startsWith("{")) return undefined;
	try {
		const value = JSON.parse(line) as unknown;
		return isPlainObject(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

/** Who recorded a format. */
export function agentOf(format: SessionFormat): string {
	if (format === "claude-code" || format === "claude-export") return "claude-code";
	return format === "pi-subagents" ? "pi-subagents" : "pi";
}
