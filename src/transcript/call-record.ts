// Turning one recorded tool call (any recorder, any tool naming) into a ToolCallRecord:
// its kind, the fields detectors look at, and a bounded result text. Pure.
import type { CallKind, ToolCallRecord } from "./tool-call.ts";

/**
 * Result text kept per call (head and tail, see resultText). Detectors only hash and skim
 * results, and a session can hold multi-megabyte outputs, so memory stays flat.
 */
export const RESULT_CHARS = 4000;

const KINDS: Record<string, CallKind> = {
	read: "read",
	Read: "read",
	NotebookRead: "read",
	edit: "edit",
	Edit: "edit",
	MultiEdit: "edit",
	NotebookEdit: "edit",
	write: "write",
	Write: "write",
	bash: "bash",
	Bash: "bash",
	grep: "search",
	find: "search",
	Grep: "search",
	Glob: "search",
	web_explore: "search",
	grep_app_search: "search",
	WebSearch: "search",
	ls: "list",
	LS: "list",
	BashOutput: "poll",
	TaskOutput: "poll",
	// Codex CLI
	shell: "bash",
	shell_command: "bash",
	local_shell: "bash",
	exec_command: "bash",
	apply_patch: "edit",
	list_dir: "list",
	grep_files: "search",
	// Gemini CLI
	run_shell_command: "bash",
	read_file: "read",
	read_many_files: "read",
	write_file: "write",
	replace: "edit",
	list_directory: "list",
	glob: "search",
	search_file_content: "search",
	google_web_search: "search",
};

export function callKind(name: string, args: Record<string, unknown>): CallKind {
	const known = KINDS[name];
	if (known) return known;
	// A status check (pi-subagents `intercom`/`subagent` with action "status") only polls.
	if (args.action === "status") return "poll";
	// MCP and other search tools (`mcp__tavily__tavily-search`, `…__search`).
	if (/search/i.test(name)) return "search";
	return "other";
}

/** The call's arguments as an object; anything else (a provider's odd payload) counts as none. */
export function argsObject(args: unknown): Record<string, unknown> {
	return args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/**
 * The text of a result: a string, or the text blocks of a content array. A long result keeps
 * its head and its tail (RESULT_CHARS in all): a poll's progress and a test run's verdict are
 * at the end.
 */
export function resultText(content: unknown): string {
	let text = "";
	if (typeof content === "string") text = content;
	else if (Array.isArray(content)) {
		for (const block of content) {
			if (!block || typeof block !== "object" || (block as { type?: unknown }).type !== "text") continue;
			const t = (block as { text?: unknown }).text;
			if (typeof t === "string") text += text ? `\n${t}` : t;
		}
	}
	if (text.length <= RESULT_CHARS) return text;
	const half = RESULT_CHARS / 2;
	return `${text.slice(0, half)}\n[…]\n${text.slice(text.length - half)}`;
}

function str(value: unknown): string | undefined {
	return typeof value === "string" ? value : undefined;
}

/** A line number or count; models sometimes send them as numeric strings. */
function num(value: unknown): number | undefined {
	if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
	if (typeof value === "string" && value.trim() !== "") {
		const n = Number(value);
		return Number.isFinite(n) ? n : undefined;
	}
	return undefined;
}

/**
 * Builds the record. `editEvidence` is what the recorder says an edit or write did, when it
 * says anything: true for a non-empty diff or patch, false for an empty one (or no result at
 * all), undefined when there is no such record.
 */
export function makeCallRecord(
	index: number,
	name: string,
	rawArgs: unknown,
	result: string,
	isError: boolean,
	editEvidence?: boolean,
): ToolCallRecord {
	const args = argsObject(rawArgs);
	const kind = callKind(name, args);
	const record: ToolCallRecord = { index, name, kind, args, result, isError };
	const path = str(args.path) ?? str(args.file_path) ?? str(args.notebook_path) ?? str(args.absolute_path);
	if (path !== undefined) record.path = path;
	if (kind === "bash") {
		const command = str(args.command);
		if (command !== undefined) record.command = command;
	}
	if (kind === "search") {
		const pattern = str(args.pattern) ?? str(args.query);
		if (pattern !== undefined) record.pattern = pattern;
	}
	if (kind === "read") {
		const offset = num(args.offset);
		const limit = num(args.limit);
		if (offset !== undefined) record.offset = offset;
		if (limit !== undefined) record.limit = limit;
	}
	if (kind === "edit" || kind === "write") record.changed = !isError && editEvidence !== false;
	return record;
}

/** What a Pi edit result's `details.diff` says, if it is there. */
export function piEditEvidence(details: unknown): boolean | undefined {
	if (!details || typeof details !== "object") return undefined;
	const diff = (details as { diff?: unknown }).diff;
	if (typeof diff !== "string") return undefined;
	return diff.trim() !== "";
}

/** Live Pi tool results become the same records as recorded ones. */
export function fromPiToolCall(
	index: number,
	name: string,
	args: unknown,
	resultContent: unknown,
	isError: boolean,
	details?: unknown,
): ToolCallRecord {
	return makeCallRecord(index, name, args, resultText(resultContent), isError, piEditEvidence(details));
}
