// What every format reader is: fed the file's lines in order, it pushes the events each
// line completes, and at the end the calls still waiting for a result.
import type { SessionEvent } from "../loops/index.ts";
import type { CallPairer, ScanStats } from "./pairing.ts";
import { isPlainObject } from "../util/index.ts";

export interface SessionParser {
	line(text: string, out: SessionEvent[]): void;
	end(out: SessionEvent[]): void;
}

/** One JSONL line as an object, parsed once; blank lines are skipped, bad ones counted. */
export function parseJsonLine(text: string, stats: ScanStats): Record<string, unknown> | undefined {
	if (text.length === 0 || (text[0] !== "{" && text.trim() === "")) return undefined;
	stats.lines++;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		stats.malformed++;
		return undefined;
	}
	if (!value || typeof value !== "object" || Array.isArray(value)) {
		stats.malformed++;
		return undefined;
	}
	return value as Record<string, unknown>;
}

const PEEK_CHARS = 2000;

/**
 * Whether lines may be judged before a full parse (peekField, parseJsonLineSkipping). Always on
 * in use; turned off only to produce the reference a test compares the shortcuts against.
 */
export const lineShortcuts = { enabled: true };

/**
 * A line's top-level string field (`key` given as `"type":"`), read without parsing the line
 * when that is certain: the first match within the first PEEK_CHARS characters, with no object
 * or array opened before it (inside a JSON string the quotes would be escaped, so a match is
 * structure). Undefined when unsure; the caller then parses the line as usual.
 */
export function peekField(text: string, key: string): string | undefined {
	if (!lineShortcuts.enabled) return undefined;
	const head = text.length > PEEK_CHARS ? text.slice(0, PEEK_CHARS) : text;
	const at = head.indexOf(key);
	if (at <= 0 || head.lastIndexOf("{", at) !== 0 || head.lastIndexOf("[", at) !== -1) return undefined;
	const from = at + key.length;
	const end = head.indexOf('"', from);
	if (end === -1) return undefined;
	const value = head.slice(from, end);
	return value.includes("\\") ? undefined : value;
}

/** What JSON allows between a string's quotes: no raw control character, only the escapes JSON knows. */
const BAD_STRING_BODY = /[\u0000-\u001f]|\\(?:[^"\\/bfnrtu]|u(?![0-9a-fA-F]{4}))/;

/**
 * One JSONL line as an object, like parseJsonLine, but with the value of the top-level string
 * field `key` (given as `"text":"`) left unparsed (read as ""), when that is certain: the field
 * is found as peekField finds one and its string is well-formed JSON (so a malformed line is
 * still counted as malformed). A pi-subagents record repeats its message's text in a top-level
 * `text`; no detector reads that copy, and not building it is most of what parsing such a line
 * costs. Anything unsure parses the whole line.
 */
export function parseJsonLineSkipping(text: string, stats: ScanStats, key: string): Record<string, unknown> | undefined {
	const at = lineShortcuts.enabled ? text.indexOf(key) : -1;
	if (at <= 0 || at > PEEK_CHARS || text.lastIndexOf("{", at) !== 0 || text.lastIndexOf("[", at) !== -1) return parseJsonLine(text, stats);
	const from = at + key.length;
	// The closing quote: the first one not escaped (preceded by an even run of backslashes).
	let end = text.indexOf('"', from);
	while (end !== -1) {
		let slashes = 0;
		while (text.charCodeAt(end - 1 - slashes) === 92) slashes++;
		if (slashes % 2 === 0) break;
		end = text.indexOf('"', end + 1);
	}
	if (end === -1 || end - from < SKIP_WORTH || BAD_STRING_BODY.test(text.slice(from, end))) return parseJsonLine(text, stats);
	return parseJsonLine(text.slice(0, from) + text.slice(end), stats);
}

/** Shorter strings are cheaper to parse than to cut out. */
const SKIP_WORTH = 256;

export function asObject(value: unknown): Record<string, unknown> | undefined {
	return isPlainObject(value) ? value : undefined;
}

/** The visible text of a message's content (shared with the live watchdog). */
export { contentText as visibleText } from "../util/index.ts";

/** How a recorder writes a tool call inside an assistant message. */
export interface ToolBlockShape {
	type: string;
	args: string;
}

export const PI_TOOL_BLOCK: ToolBlockShape = { type: "toolCall", args: "arguments" };
export const CLAUDE_TOOL_BLOCK: ToolBlockShape = { type: "tool_use", args: "input" };

/**
 * An assistant message's visible text (one event) and its tool calls (to the pairer). A message
 * with no tool calls is a stop and always gives an event, empty or not, saying whether it held
 * hidden reasoning: the unfinished-stop detector needs to see an empty final message.
 */
export function assistantContent(content: unknown, shape: ToolBlockShape, pairer: CallPairer, out: SessionEvent[], error = false): void {
	if (!Array.isArray(content)) {
		if (typeof content === "string" && (content.trim() || error)) out.push({ type: "assistant", text: content, ...(error ? { error } : {}) });
		return;
	}
	let text = "";
	let calls = 0;
	let thinking = false;
	for (const block of content) {
		const b = asObject(block);
		if (!b) continue;
		if (b.type === "text" && typeof b.text === "string" && b.text.trim()) text += text ? `\n${b.text}` : b.text;
		else if (b.type === shape.type) {
			calls++;
			pairer.call(b.id, b.name, b[shape.args]);
		} else if (b.type === "thinking" || b.type === "redacted_thinking") thinking = true; // hidden reasoning: never its text
	}
	if (text || calls === 0) out.push({ type: "assistant", text, ...(thinking && calls === 0 ? { thinking } : {}), ...(error ? { error } : {}) });
}
