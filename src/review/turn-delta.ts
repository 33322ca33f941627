// The turn delta: what happened in one run, as text for the reviewer, built from the session
// entries the run added. Each tool call is followed by its own result (paired on the call's id,
// so parallel calls read call, result, call, result); the user's prompt that the input already
// shows under "What the user asked" is referred to, not repeated. The main model's hidden
// reasoning is never included. Pure.
import { QUESTION_MESSAGE } from "../findings/index.ts";
import { clipCounting, contentText, headAndTail } from "../util/index.ts";
import { SCOPE_KEPT_WHOLE } from "./scope.ts";
import { callText, resultText } from "./tool-call-text.ts";

/** An over-long delta keeps at most this much of its start; its end gets the rest. */
export const DELTA_HEAD_CHARS = 6000;
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
		toolCallId?: string;
		isError?: boolean;
		details?: unknown;
		customType?: string;
	};
}

export interface DeltaOptions {
	/** The user's requests the input lists (oldest first): the newest ones are shown there whole. */
	prompts?: readonly string[];
	/** Paths (repository-relative) whose content the input shows under "The change". */
	shownFiles?: ReadonlySet<string>;
	/** The session's folder and the repository root: tools name paths relative to the first. */
	cwd?: string;
	root?: string;
}

export function renderTurnDelta(
	entries: readonly EntryLike[],
	ownMessageType: string,
	options: DeltaOptions = {},
): string {
	const results = new Map<string, NonNullable<EntryLike["message"]>>();
	for (const e of entries)
		if (e.type === "message" && e.message?.role === "toolResult" && typeof e.message.toolCallId === "string")
			results.set(e.message.toolCallId, e.message);
	const paired = new Set<string>();
	const ctx = { shownFiles: options.shownFiles ?? new Set<string>(), cwd: options.cwd, root: options.root };
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
		if (m.role === "user") parts.push(userText(contentText(m.content), options.prompts ?? []));
		else if (m.role === "assistant" && Array.isArray(m.content)) {
			for (const block of m.content as Array<Record<string, unknown>>) {
				if (block.type === "text" && typeof block.text === "string" && block.text.trim())
					parts.push(`[Agent]\n${block.text.trim()}`);
				else if (block.type === "toolCall") {
					const id = typeof block.id === "string" ? block.id : undefined;
					const result = id !== undefined ? results.get(id) : undefined;
					if (id !== undefined && result) paired.add(id);
					parts.push(callText({ name: String(block.name), arguments: block.arguments }, result, ctx));
				}
				// "thinking" blocks are the model's hidden reasoning: left out on purpose.
			}
		} else if (m.role === "toolResult") {
			// Shown under its call; one whose call is not in this record stands alone.
			if (typeof m.toolCallId === "string" && paired.has(m.toolCallId)) continue;
			parts.push(`[Tool call] ${m.toolName ?? "?"} (before this record)\n${resultText(m)}`);
		} else if (m.role === "custom") {
			parts.push(`[Note (${m.customType ?? "custom"})]\n${clipCounting(contentText(m.content), NOTE_CHARS)}`);
		}
	}
	return parts.join("\n\n");
}

/** A user message, or a pointer to the request the input already shows whole. */
function userText(text: string, prompts: readonly string[]): string {
	const at = prompts.lastIndexOf(text.trim());
	if (at >= 0 && at >= prompts.length - SCOPE_KEPT_WHOLE)
		return `[User] (request ${at + 1} under "What the user asked", above)`;
	return `[User]\n${text}`;
}

/** The delta in `max` characters: its first 6,000 (at most half the room) and as much of its end as fits. */
export function deltaHeadAndTail(text: string, max: number): string {
	return headAndTail(text, max, Math.min(DELTA_HEAD_CHARS, Math.floor(max / 2)));
}
