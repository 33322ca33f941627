// Which recorder wrote a session file, told from its first lines (never from its name).

export type SessionFormat = "pi" | "pi-subagents" | "claude-code" | "claude-export" | "codex" | "gemini";

/** Non-empty lines openSession hands to detectFormat. */
export const DETECT_LINES = 20;

export const UNKNOWN_FORMAT =
	"not a recognised session format (expected a Pi session file, a pi-subagents " +
	"transcript, Claude Code JSONL or a Claude Code Markdown export)";

const CLAUDE_TYPES = new Set([
	"user",
	"assistant",
	"system",
	"progress",
	"summary",
	"file-history-snapshot",
	"queue-operation",
	"attachment",
	// Metadata lines recent versions open a file with (titles, modes, the last prompt, tags).
	"custom-title",
	"agent-name",
	"last-prompt",
	"permission-mode",
	"mode",
	"tag",
]);

const EXPORT_TITLE = "# Claude Session Export";
const EXPORT_SECTION = /^### (User|Assistant)\s*$/;

/** A Gemini CLI session document names its project by hash; nothing else here does. */
const GEMINI_KEYS = /"projectHash"\s*:/;

export function detectFormat(firstLines: string[]): SessionFormat | undefined {
	// A Gemini document is one JSON object: a file that opens with a whole record of a line format
	// is that format, whatever its text says (and its first 20,000 characters are not searched).
	const first = firstLines.find((line) => line.trim());
	const opening = first === undefined ? undefined : lineFormat(first.trim());
	if (opening) return opening;
	const head = firstLines.join("\n").slice(0, 20_000);
	if (/^\s*\{/.test(head) && GEMINI_KEYS.test(head) && /"sessionId"\s*:/.test(head)) return "gemini";
	let seen = 0;
	for (const raw of firstLines) {
		const line = raw.trim();
		if (!line) continue;
		if (seen++ >= DETECT_LINES) break;
		if (line.startsWith(EXPORT_TITLE) || EXPORT_SECTION.test(line)) return "claude-export";
		const format = lineFormat(line);
		if (format) return format;
	}
	return undefined;
}

function lineFormat(line: string): SessionFormat | undefined {
	if (line[0] !== "{") return undefined;
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch {
		return undefined; // one malformed line does not decide
	}
	return formatOf(value);
}

function formatOf(value: unknown): SessionFormat | undefined {
	if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
	const o = value as Record<string, unknown>;
	if (typeof o.recordType === "string" && ("runId" in o || "sourceEventType" in o)) return "pi-subagents";
	// Codex CLI rollouts: every line is `{timestamp, type, payload}`.
	if (
		typeof o.type === "string" &&
		"payload" in o &&
		/^(?:session_meta|response_item|event_msg|turn_context|compacted)$/.test(o.type)
	)
		return "codex";
	if (o.type === "session" && typeof o.id === "string") return "pi";
	// A Pi file whose header was lost still has tree-linked message entries.
	if (o.type === "message" && "parentId" in o && o.message && typeof o.message === "object") return "pi";
	if (
		typeof o.type === "string" &&
		CLAUDE_TYPES.has(o.type) &&
		("sessionId" in o || "uuid" in o || "leafUuid" in o || "messageId" in o)
	)
		return "claude-code";
	// A line type this reader does not know yet, in Claude Code's shape (a `sessionId` beside a
	// string `type`): the file is still Claude Code's; the reader skips and counts such lines.
	if (typeof o.type === "string" && typeof o.sessionId === "string" && !("payload" in o)) return "claude-code";
	return undefined;
}
