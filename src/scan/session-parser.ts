// What every format reader is: fed the file's lines in order, it pushes the events each
// line completes, and at the end the calls still waiting for a result.
import type { SessionEvent } from "../transcript/index.ts";
import type { ScanStats } from "../transcript/index.ts";
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
 * Whether lines may be judged before a full parse (peekField, parseToolResultLine). Always on
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
	// Within the first PEEK_CHARS characters, without cutting them out.
	const at = text.indexOf(key);
	if (at <= 0 || at + key.length > PEEK_CHARS || text.lastIndexOf("{", at) !== 0 || text.lastIndexOf("[", at) !== -1)
		return undefined;
	const from = at + key.length;
	const end = text.indexOf('"', from);
	if (end === -1 || end >= PEEK_CHARS) return undefined;
	const value = text.slice(from, end);
	return value.includes("\\") ? undefined : value;
}

/** What JSON allows between a string's quotes: no raw control character, only the escapes JSON knows. */
const BAD_STRING_BODY = /[\u0000-\u001f]|\\(?:[^"\\/bfnrtu]|u(?![0-9a-fA-F]{4}))/;

/** Shorter strings are cheaper to parse than to cut out. */
const SKIP_WORTH = 256;

const TEXT_KEY = '"text":"';
/** Pi's bash result repeats the text it shows in details.truncation.content. */
const TRUNCATION_KEY = '"truncation":{"content":"';

/** Whether the character at `at` follows an even run of backslashes (is not escaped). */
function unescaped(text: string, at: number): boolean {
	let slashes = 0;
	while (text.charCodeAt(at - 1 - slashes) === 92) slashes++;
	return slashes % 2 === 0;
}

/** The closing quote of the JSON string whose body starts at `from`: the first quote not escaped, or -1. */
function stringEnd(text: string, from: number): number {
	let end = text.indexOf('"', from);
	while (end !== -1 && !unescaped(text, end)) end = text.indexOf('"', end + 1);
	return end;
}

/**
 * The body [from, end) of the string value of the first `key` (given as `"name":"` or longer)
 * at or after `start` whose opening quote is not escaped. In valid JSON such a quote outside a
 * string can only open a key, so this is structure, not text that looks like it.
 */
function keyedString(text: string, key: string, start: number): [number, number] | undefined {
	let at = text.indexOf(key, start);
	while (at !== -1 && !unescaped(text, at)) at = text.indexOf(key, at + 1);
	if (at === -1) return undefined;
	const from = at + key.length;
	const end = stringEnd(text, from);
	return end === -1 ? undefined : [from, end];
}

/** Whether `body` (a string's raw text) is the raw text `witness` starts with, ending where an escape ends. */
function prefixOf(text: string, body: [number, number], witness: [number, number]): boolean {
	const length = body[1] - body[0];
	if (length > witness[1] - witness[0] || text.slice(body[0], body[1]) !== text.slice(witness[0], witness[0] + length))
		return false;
	// An odd run of backslashes at the end opens an escape; a \u escape needs its four digits.
	const end = witness[0] + length;
	for (let k = 1; k <= 5 && end - k >= witness[0]; k++) {
		const at = end - k;
		if (text.charCodeAt(at) !== 92) continue;
		let run = 1;
		while (at - run >= witness[0] && text.charCodeAt(at - run) === 92) run++;
		if (run % 2 === 0) return true;
		return at + (text.charCodeAt(at + 1) === 117 ? 6 : 2) <= end;
	}
	return true;
}

/**
 * A tool result line as an object, like parseJsonLine, but with the copies of its text that no
 * detector reads left unparsed (read as ""), when that is certain:
 * - `topLevelText`: a pi-subagents record's top-level `text` (found as peekField finds a field),
 *   which repeats its message's content;
 * - details.truncation.content, where Pi's bash result repeats the text it shows.
 * A copy is left out only when its raw text is the raw text of the message's first `text` (or
 * starts it, cut where an escape ends), which stays in the line and is parsed, or (the top-level
 * text) when its string is well-formed JSON: either way a malformed line is still counted as
 * malformed (a reduced line parses exactly when the whole line does). A line that `isToolResult`
 * says is not one after all is parsed in full.
 */
export function parseToolResultLine(
	text: string,
	stats: ScanStats,
	topLevelText: boolean,
	isToolResult: (value: Record<string, unknown>) => boolean,
): Record<string, unknown> | undefined {
	if (!lineShortcuts.enabled) return parseJsonLine(text, stats);
	const cuts: Array<[number, number]> = [];
	let after = 0;
	let top: [number, number] | undefined;
	if (topLevelText) {
		const at = text.indexOf(TEXT_KEY);
		if (at > 0 && at <= PEEK_CHARS && text.lastIndexOf("{", at) === 0 && text.lastIndexOf("[", at) === -1) {
			// Where the next field starts: inside a well-formed string `","` cannot occur, so this
			// is the string's end if the string is well-formed, which comparing it with the
			// message's text (or the JSON check) settles below.
			const from = at + TEXT_KEY.length;
			const next = text.indexOf('","', from);
			const end = next !== -1 ? next : stringEnd(text, from);
			if (end !== -1) {
				top = [from, end];
				after = end + 1;
			}
		}
	}
	const bigTop = top !== undefined && top[1] - top[0] >= SKIP_WORTH;
	// Nothing worth leaving out: parsed as it is, without first finding where the message's text ends. With a
	// top-level copy worth leaving out, the message's text is found anyway, and the truncation copy is looked
	// for only past it (below), not first through the whole text.
	if (!bigTop && text.indexOf(TRUNCATION_KEY, after) === -1) return parseJsonLine(text, stats);
	const witness = keyedString(text, TEXT_KEY, after);
	if (top && bigTop) {
		const same = witness !== undefined && witness[1] - witness[0] === top[1] - top[0] && prefixOf(text, top, witness);
		if (same) cuts.push(top);
		else {
			// Not the message's text: its own end, and the JSON check.
			const end = stringEnd(text, top[0]);
			if (end - top[0] >= SKIP_WORTH && !BAD_STRING_BODY.test(text.slice(top[0], end))) cuts.push([top[0], end]);
		}
	}
	// Pi writes details after the content: looked for past the message's text, not inside it.
	const detailsAt = witness ? text.indexOf(TRUNCATION_KEY, witness[1]) : -1;
	if (witness && detailsAt !== -1 && unescaped(text, detailsAt)) {
		const from = detailsAt + TRUNCATION_KEY.length;
		const end = text.indexOf('","', from);
		if (end - from >= SKIP_WORTH && prefixOf(text, [from, end], witness)) cuts.push([from, end]);
	}
	if (cuts.length === 0) return parseJsonLine(text, stats);
	cuts.sort((x, y) => x[0] - y[0]);
	let reduced = text.slice(0, cuts[0][0]);
	for (let k = 0; k < cuts.length; k++)
		reduced += text.slice(cuts[k][1], k + 1 < cuts.length ? cuts[k + 1][0] : text.length);
	const value = parseJsonLine(reduced, { ...stats });
	if (!value || !isToolResult(value)) return parseJsonLine(text, stats);
	stats.lines++;
	return value;
}

export function asObject(value: unknown): Record<string, unknown> | undefined {
	return isPlainObject(value) ? value : undefined;
}

/** The visible text of a message's content (shared with the live watchdog). */
export { contentText as visibleText } from "../util/index.ts";
