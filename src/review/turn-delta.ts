// The turn delta: what happened in one run, as text for the reviewer, built from the
// session entries the run added. The main model's hidden reasoning is never included. Pure.
import { QUESTION_MESSAGE } from "../findings/index.ts";
import { isAbortedResult, nestedCallsOf } from "../transcript/index.ts";
import { clipCounting, contentText } from "../util/index.ts";

export const DELTA_HEAD_CHARS = 6000;
const TOOL_ARGS_CHARS = 1200;
const TOOL_RESULT_CHARS = 1500;
const DIFF_CHARS = 3000;
const NOTE_CHARS = 600;
/** Nested calls shown under the tool result that made them; the rest are counted. */
const NESTED_SHOWN = 20;
const NESTED_CHARS = 300;

/** The parts of a Pi session entry the delta reads. */
export interface EntryLike {
	type: string;
	id?: string;
	customType?: string;
	content?: unknown;
	/** A `context_edit` entry's target and what it put in its place (null: dropped from the model's context). */
	targetId?: string;
	replacement?: unknown;
	message?: {
		role?: string;
		content?: unknown;
		toolName?: string;
		isError?: boolean;
		details?: unknown;
		customType?: string;
		nestedCalls?: unknown;
	};
}

export function renderTurnDelta(entries: readonly EntryLike[], ownMessageType: string): string {
	const parts: string[] = [];
	for (const entry of entries) {
		if (entry.type === "custom_message") {
			const label =
				entry.customType === ownMessageType
					? "Watchdog finding delivered to the agent"
					: entry.customType === QUESTION_MESSAGE
						? "Watchdog question delivered to the agent"
						: `Note (${entry.customType ?? "custom"})`;
			parts.push(`[${label}]\n${clipCounting(contentText(entry.content), NOTE_CHARS)}`);
			continue;
		}
		if (entry.type === "context_edit") {
			parts.push(contextEdit(entry, entries));
			continue;
		}
		const m = entry.message;
		if (entry.type !== "message" || !m) continue;
		if (m.role === "user") parts.push(`[User]\n${contentText(m.content)}`);
		else if (m.role === "assistant" && Array.isArray(m.content)) {
			for (const block of m.content as Array<Record<string, unknown>>) {
				if (block.type === "text" && typeof block.text === "string" && block.text.trim())
					parts.push(`[Agent]\n${block.text.trim()}`);
				else if (block.type === "toolCall")
					parts.push(
						`[Tool call] ${String(block.name)} ${clipCounting(JSON.stringify(block.arguments ?? {}), TOOL_ARGS_CHARS)}`,
					);
				// "thinking" blocks are the model's hidden reasoning: left out on purpose.
			}
		} else if (m.role === "toolResult") {
			const diff = (m.details as { diff?: unknown } | undefined)?.diff;
			const body =
				typeof diff === "string" && diff
					? `${clipCounting(contentText(m.content), 300)}\n${clipCounting(diff, DIFF_CHARS)}`
					: clipCounting(contentText(m.content), TOOL_RESULT_CHARS);
			const cancelled = isAbortedResult(m.content, m.isError === true);
			const label = cancelled ? " (cancelled, did not run)" : m.isError ? " (error)" : "";
			parts.push(`[Tool result] ${m.toolName ?? "?"}${label}\n${body}${nestedText(m as Record<string, unknown>)}`);
		} else if (m.role === "custom") {
			parts.push(`[Note (${m.customType ?? "custom"})]\n${clipCounting(contentText(m.content), NOTE_CHARS)}`);
		}
	}
	return parts.join("\n\n");
}

/** The calls a tool made through other tools (codemode's `tools.*`), under its result. */
function nestedText(message: Record<string, unknown>): string {
	const calls = nestedCallsOf(message);
	if (!calls.length) return "";
	const lines = calls.slice(0, NESTED_SHOWN).map((c) => {
		const call = clipCounting(`${c.name} ${JSON.stringify(c.args)}`, NESTED_CHARS);
		return `  [Nested call] ${call}${c.isError ? ` (error: ${clipCounting(c.result, NESTED_CHARS)})` : ""}`;
	});
	if (calls.length > NESTED_SHOWN) lines.push(`  … ${calls.length - NESTED_SHOWN} more nested calls`);
	return `\n${lines.join("\n")}`;
}

/** A context edit: what left the agent's context, or what now stands in its place. */
function contextEdit(entry: EntryLike, entries: readonly EntryLike[]): string {
	const target = entries.find((e) => e.id !== undefined && e.id === entry.targetId);
	const role = target?.message?.role;
	const what =
		role === "toolResult"
			? `the ${target?.message?.toolName ?? "tool"} result`
			: role
				? `a ${role} message`
				: target?.type === "custom_message"
					? `a note (${target.customType ?? "custom"})`
					: "an earlier entry";
	if (entry.replacement === null || entry.replacement === undefined)
		return `[Context edit] ${what} was dropped from the agent's context`;
	return `[Context edit] ${what} was replaced in the agent's context with:\n${clipCounting(contentText(entry.replacement), NOTE_CHARS)}`;
}

/** Keeps the first `head` characters and as much of the tail as fits in `max`. */
export function headAndTail(text: string, max: number, head = DELTA_HEAD_CHARS): string {
	if (text.length <= max) return text;
	const marker = (n: number) => `\n\n[… ${n} characters of the middle left out …]\n\n`;
	const keepHead = Math.min(head, max);
	const probe = marker(text.length);
	const tailRoom = Math.max(0, max - keepHead - probe.length);
	const omitted = text.length - keepHead - tailRoom;
	return `${text.slice(0, keepHead)}${marker(omitted)}${tailRoom ? text.slice(text.length - tailRoom) : ""}`.slice(
		0,
		max,
	);
}
