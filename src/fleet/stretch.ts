// The events of a tail's last stretch (from the last user prompt on: the classifier judges only
// that), read as lightly as the verdict allows. Most of a tail's bytes are tool results, which
// the classifier reads only through the claims checker (and a poll's end for the unfinished-stop
// detector): a long result is first read as its bare answer (a stub: the call is answered in its
// place, with no text), and all of them only when the verdict asks (`full`).
import { parseSessionLines, type SessionFormat } from "../scan/index.ts";
import { ABORTED_TEXT, PI_TOOL_BLOCK, type SessionEvent } from "../transcript/index.ts";
import { isPlainObject } from "../util/index.ts";

export interface StretchEvents {
	events: SessionEvent[];
	malformed: number;
	/** The events with every result read, when `events` are light. */
	full?: () => { events: SessionEvent[]; malformed: number };
}

/** A shorter result costs less to parse than to judge. */
const STUB_WORTH = 1024;
const ROLE_KEY = '"message":{"role":"';
const ID_KEY = '"toolCallId":"';
/** Where Pi writes a result's id: right after its role. */
const ID_WITHIN = 400;

export function stretchEvents(format: SessionFormat, tailLines: string[]): StretchEvents {
	const stretch = lastStretch(format, tailLines);
	const whole = () => {
		const { events, stats } = parseSessionLines(format, stretch);
		return { events, malformed: stats.malformed };
	};
	if (format !== "pi") return whole();
	// A stretch that ends on a tool call is judged by that alone (interrupted, or still running):
	// its results are never read.
	if (endsOnCall(stretch)) {
		const { events, stats } = parseSessionLines(
			format,
			stretch.filter((line) => roleOf(line) !== "toolResult"),
		);
		return { events, malformed: stats.malformed };
	}
	let stubbed = false;
	const light = stretch.map((line) => {
		const stub = stubOf(line);
		if (stub) stubbed = true;
		return stub ?? line;
	});
	if (!stubbed) return whole();
	const { events, stats } = parseSessionLines(format, light);
	return { events, malformed: stats.malformed, full: whole };
}

/** The lines from the last user message on, in a Pi file; the whole tail when there is none or for other formats. */
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

/**
 * Whether a Pi stretch's last message is an assistant message that makes a tool call: then no
 * result follows it, its calls are the stretch's last events whatever the results before them
 * said, and the stop is decided without them. Lines after it must be certain not to be messages.
 */
function endsOnCall(lines: string[]): boolean {
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i] as string;
		if (!line.trim()) continue;
		// Pi writes `type` first: a line that does not start so is not certain, and is left to the parser.
		if (!line.startsWith('{"type":"')) return false;
		if (!line.startsWith('{"type":"message",')) continue;
		if (roleOf(line) !== "assistant") return false;
		const message = parseObject(line)?.message;
		const content = isPlainObject(message) ? message.content : undefined;
		return Array.isArray(content) && content.some((b) => isPlainObject(b) && b.type === PI_TOOL_BLOCK.type);
	}
	return false;
}

/**
 * A long tool result's line as its bare answer, when that answers the same call in the same place
 * as the full line would: a Pi message entry with a plain id, no cancelled call (whose result
 * records nothing) and no nested calls (which add calls). Undefined: the line is read as it is.
 */
function stubOf(line: string): string | undefined {
	if (line.length < STUB_WORTH || !line.startsWith('{"type":"message",') || roleOf(line) !== "toolResult")
		return undefined;
	const at = line.indexOf(ID_KEY);
	if (at === -1 || at > ID_WITHIN) return undefined;
	const end = line.indexOf('"', at + ID_KEY.length);
	const id = line.slice(at + ID_KEY.length, end);
	if (end === -1 || id.includes("\\") || line.includes(ABORTED_TEXT) || line.includes('"nestedCalls"'))
		return undefined;
	return JSON.stringify({
		type: "message",
		message: { role: "toolResult", toolCallId: id, content: [], isError: false },
	});
}

function parseObject(line: string): Record<string, unknown> | undefined {
	try {
		const value = JSON.parse(line) as unknown;
		return isPlainObject(value) ? value : undefined;
	} catch {
		return undefined;
	}
}
