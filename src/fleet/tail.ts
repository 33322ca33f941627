// A session file's head and tail, read through the guarded reader (regular files only, no link
// out of the folder, bounded bytes), parsed by scan's format readers into the events the
// classifier reads, plus what the view shows: id, cwd, start, model, name, first prompt.
import { detectFormat, parseSessionLines, type SessionFormat, sessionParser } from "../scan/index.ts";
import { PI_TOOL_BLOCK, type SessionEvent } from "../transcript/index.ts";
import { isPlainObject, readFileInRoot } from "../util/index.ts";

export const TAIL_BYTES = 64 * 1024;
/** One retry when the tail held no whole entry (a single huge tool result). */
const WIDE_TAIL_BYTES = 512 * 1024;
/** The header, the first model and the first prompt are at the start. */
const HEAD_BYTES = 8 * 1024;

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

export function readTail(path: string, root: string, tailBytes = TAIL_BYTES): TailResult {
	const first = readOnce(path, root, tailBytes);
	if (first.ok && !first.read.events.length && first.cut) return readOnce(path, root, WIDE_TAIL_BYTES);
	return first;
}

function readOnce(path: string, root: string, tailBytes: number): TailResult & { cut?: boolean } {
	// One open for both ends: the head only when the tail does not reach back to it.
	const tail = readFileInRoot(path, {
		root,
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
	const stretch = lastStretch(format, tailLines);
	// A stretch that ends on a tool call is judged by that alone (interrupted, or still running):
	// its results are never read, so they are not parsed.
	const { events, stats } = parseSessionLines(
		format,
		endsOnCall(format, stretch) ? stretch.filter((line) => roleOf(line) !== "toolResult") : stretch,
	);
	const read: TailRead = { format, events, malformed: stats.malformed, cut };
	headFacts(format, headLines, read);
	tailFacts(format, tailLines, read);
	return { ok: true, read, cut };
}

/**
 * The lines from the last user message on, in a Pi file (the classifier judges only that
 * stretch); the whole tail when there is none or for other formats.
 */
function lastStretch(format: SessionFormat, lines: string[]): string[] {
	if (format !== "pi") return lines;
	for (let i = lines.length - 1; i > 0; i--) if (roleOf(lines[i] as string) === "user") return lines.slice(i);
	return lines;
}

/**
 * A Pi message line's role, found without parsing it: Pi writes `"message":{"role":"…"` before
 * the message's content, and a raw match is structure (inside a string its quotes would be
 * escaped). A long tool result is not searched to its end; a role nested further in (a
 * sub-agent's messages in a result's details) comes after the line's own. Undefined when unsure.
 */
function roleOf(line: string): string | undefined {
	const at = line.indexOf(ROLE_KEY);
	if (at === -1) return undefined;
	const end = line.indexOf('"', at + ROLE_KEY.length);
	return end === -1 ? undefined : line.slice(at + ROLE_KEY.length, end);
}

const ROLE_KEY = '"message":{"role":"';

/**
 * Whether a Pi stretch's last message is an assistant message that makes a tool call: then no
 * result follows it, its calls are the stretch's last events whatever the results before them
 * said, and the stop is decided without them. Lines after it must be certain not to be messages.
 */
function endsOnCall(format: SessionFormat, lines: string[]): boolean {
	if (format !== "pi") return false;
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i] as string;
		if (!line.trim()) continue;
		// Pi writes `type` first: a line that does not start so is not certain, and is left to the parser.
		if (!line.startsWith('{"type":"')) return false;
		if (!line.startsWith('{"type":"message",')) continue;
		if (roleOf(line) !== "assistant") return false;
		const message = parse(line)?.message;
		const content = isPlainObject(message) ? message.content : undefined;
		return Array.isArray(content) && content.some((b) => isPlainObject(b) && b.type === PI_TOOL_BLOCK.type);
	}
	return false;
}

/** Id, cwd, start and first prompt from the first lines; stops as soon as it has them. */
function headFacts(format: SessionFormat, lines: string[], read: TailRead): void {
	const parser = sessionParser(format);
	const events: SessionEvent[] = [];
	for (const line of lines.slice(0, 60)) {
		if (!read.cwd || !read.id || !read.startedAt || (format === "pi" && !read.model)) {
			const o = parse(line);
			if (o) headLine(o, read);
		}
		parser.line(line, events);
		const prompt = events.find((e) => e.type === "prompt");
		if (prompt?.type === "prompt") {
			read.firstPrompt = prompt.text;
			break;
		}
	}
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

/** The latest model and name, from the tail's last lines that can hold them (never a scan of every byte). */
function tailFacts(format: SessionFormat, lines: string[], read: TailRead): void {
	const pi = format === "pi";
	let model = false;
	let name = !pi;
	for (let i = lines.length - 1; i >= 0 && !(model && name); i--) {
		const line = lines[i] as string;
		if (pi) {
			// Pi writes `type` first: a prefix says what the line is.
			if (!model && line.startsWith('{"type":"model_change"')) {
				const o = parse(line);
				if (typeof o?.provider === "string" && typeof o.modelId === "string") read.model = `${o.provider}/${o.modelId}`;
				model = true;
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
