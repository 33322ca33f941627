// The events of a tail's last stretch (from the last user prompt on: the classifier judges only
// that). Most of a tail's bytes are tool results; a stretch that ends on a tool call is decided
// by that alone, so there they are not parsed. (Reading long results as bare answers first and
// in full only when the verdict asks was tried: the extra scans and the second parse for a
// closing report cost more than they saved.)
import { parseSessionLines, type SessionFormat } from "../scan/index.ts";
import { PI_TOOL_BLOCK, type SessionEvent } from "../transcript/index.ts";
import { isPlainObject } from "../util/index.ts";

export interface StretchEvents {
	events: SessionEvent[];
	malformed: number;
}

const ROLE_KEY = '"message":{"role":"';
const CALL_TYPE = `"${PI_TOOL_BLOCK.type}"`;

export function stretchEvents(format: SessionFormat, tailLines: string[]): StretchEvents {
	const stretch = lastStretch(format, tailLines);
	// A stretch that ends on a tool call is judged by that alone (interrupted, or still running):
	// its results are never read.
	const lines =
		format === "pi" && endsOnCall(stretch) ? stretch.filter((line) => roleOf(line) !== "toolResult") : stretch;
	const { events, stats } = parseSessionLines(format, lines);
	return { events, malformed: stats.malformed };
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
		// No call block's type anywhere in the line: not parsed (a "no" only means the results get read).
		if (!line.includes(CALL_TYPE)) return false;
		const message = parseObject(line)?.message;
		const content = isPlainObject(message) ? message.content : undefined;
		return Array.isArray(content) && content.some((b) => isPlainObject(b) && b.type === PI_TOOL_BLOCK.type);
	}
	return false;
}

function parseObject(line: string): Record<string, unknown> | undefined {
	try {
		const value = JSON.parse(line) as unknown;
		return isPlainObject(value) ? value : undefined;
	} catch {
		return undefined;
	}
}
