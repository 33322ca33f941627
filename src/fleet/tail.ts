// A session file's head and tail, read through the guarded reader (regular files only, no link
// out of the folder, bounded bytes), parsed by scan's format readers into the events the
// classifier reads, plus what the view shows: id, cwd, start, model, name, first prompt.
import { detectFormat, parseSessionLines, type SessionFormat } from "../scan/index.ts";
import type { SessionEvent } from "../transcript/index.ts";
import { isPlainObject, readFileInRoot } from "../util/index.ts";

export const TAIL_BYTES = 64 * 1024;
/** One retry when the tail held no whole entry (a single huge tool result). */
const WIDE_TAIL_BYTES = 512 * 1024;
const HEAD_BYTES = 16 * 1024;

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
	const tail = readFileInRoot(path, { root, maxBytes: tailBytes, overLimit: "tail" });
	if (tail.state === "missing") return { ok: false, reason: "gone during the pass" };
	if (tail.state === "refused") return { ok: false, reason: tail.reason };
	const cut = tail.truncated;
	let headLines: string[];
	if (cut) {
		const head = readFileInRoot(path, { root, maxBytes: HEAD_BYTES, overLimit: "truncate" });
		if (head.state !== "ok")
			return { ok: false, reason: head.state === "refused" ? head.reason : "gone during the pass" };
		headLines = head.text.split("\n");
		if (head.truncated) headLines.pop(); // the last line is cut
	} else headLines = tail.text.split("\n");
	const format = detectFormat(headLines);
	if (!format) return { ok: false, reason: "not a recognised session format" };
	const tailLines = tail.text.split("\n");
	if (cut) tailLines.shift(); // starts mid-line
	const { events, stats } = parseSessionLines(format, tailLines);
	const read: TailRead = { format, events, malformed: stats.malformed, cut };
	headFacts(format, headLines, read);
	tailFacts(tail.text, read);
	return { ok: true, read, cut };
}

/** Who recorded a format. */
export function agentOf(format: SessionFormat): string {
	return format === "claude-code" || format === "claude-export"
		? "claude-code"
		: format === "pi-subagents"
			? "pi-subagents"
			: "pi";
}

/** Id, cwd, start and first prompt from the first lines. */
function headFacts(format: SessionFormat, lines: string[], read: TailRead): void {
	for (const line of lines.slice(0, 40)) {
		const o = parse(line);
		if (!o) continue;
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
	const prompt = parseSessionLines(format, lines).events.find((e) => e.type === "prompt");
	if (prompt?.type === "prompt") read.firstPrompt = prompt.text;
}

/** The latest model and name, found from the end of the tail without parsing every line. */
function tailFacts(text: string, read: TailRead): void {
	const modelAt = Math.max(text.lastIndexOf('"type":"model_change"'), text.lastIndexOf('"model":"'));
	if (modelAt !== -1) {
		const o = parse(lineAt(text, modelAt));
		const message = isPlainObject(o?.message) ? o.message : undefined;
		if (o?.type === "model_change" && typeof o.provider === "string" && typeof o.modelId === "string")
			read.model = `${o.provider}/${o.modelId}`;
		else if (typeof message?.model === "string") read.model = message.model;
	}
	const nameAt = text.lastIndexOf('"type":"session_info"');
	const info = nameAt === -1 ? undefined : parse(lineAt(text, nameAt));
	if (typeof info?.name === "string" && info.name.trim()) read.name = info.name;
}

function lineAt(text: string, at: number): string {
	const start = text.lastIndexOf("\n", at) + 1;
	const end = text.indexOf("\n", at);
	return text.slice(start, end === -1 ? text.length : end);
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
