// The turn delta: what happened in one run, as text for the reviewer, built from the
// session entries the run added. The main model's hidden reasoning is never included. Pure.
import { QUESTION_MESSAGE } from "../findings/index.ts";
import { clipCounting, contentText } from "../util/index.ts";

export const DELTA_HEAD_CHARS = 6000;
const TOOL_ARGS_CHARS = 1200;
const TOOL_RESULT_CHARS = 1500;
const DIFF_CHARS = 3000;
const NOTE_CHARS = 600;

/** The parts of a Pi session entry the delta reads. */
export interface EntryLike {
	type: string;
	customType?: string;
	content?: unknown;
	message?: {
		role?: string;
		content?: unknown;
		toolName?: string;
		isError?: boolean;
		details?: unknown;
		customType?: string;
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
			parts.push(`[Tool result] ${m.toolName ?? "?"}${m.isError ? " (error)" : ""}\n${body}`);
		} else if (m.role === "custom") {
			parts.push(`[Note (${m.customType ?? "custom"})]\n${clipCounting(contentText(m.content), NOTE_CHARS)}`);
		}
	}
	return parts.join("\n\n");
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
