// Which recorder wrote a session file, told from its first lines (never from its name).

export type SessionFormat = "pi" | "pi-subagents" | "claude-code" | "claude-export";

/** Non-empty lines openSession hands to detectFormat. */
export const DETECT_LINES = 5;

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
]);

const EXPORT_TITLE = "# Claude Session Export";
const EXPORT_SECTION = /^### (User|Assistant)\s*$/;

export function detectFormat(firstLines: string[]): SessionFormat | undefined {
	let seen = 0;
	for (const raw of firstLines) {
		const line = raw.trim();
		if (!line) continue;
		if (seen++ >= DETECT_LINES) break;
		if (line.startsWith(EXPORT_TITLE) || EXPORT_SECTION.test(line)) return "claude-export";
		if (line[0] !== "{") continue;
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch {
			continue; // one malformed line does not decide
		}
		const format = formatOf(value);
		if (format) return format;
	}
	return undefined;
}

function formatOf(value: unknown): SessionFormat | undefined {
	if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
	const o = value as Record<string, unknown>;
	if (typeof o.recordType === "string" && ("runId" in o || "sourceEventType" in o)) return "pi-subagents";
	if (o.type === "session" && typeof o.id === "string") return "pi";
	// A Pi file whose header was lost still has tree-linked message entries.
	if (o.type === "message" && "parentId" in o && o.message && typeof o.message === "object") return "pi";
	if (
		typeof o.type === "string" &&
		CLAUDE_TYPES.has(o.type) &&
		("sessionId" in o || "uuid" in o || "leafUuid" in o || "messageId" in o)
	)
		return "claude-code";
	return undefined;
}
