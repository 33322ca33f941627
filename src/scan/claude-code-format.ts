// Claude Code project logs (`~/.claude/projects/<slug>/<session>.jsonl`): one JSON object per
// line; `user` and `assistant` lines carry Claude API blocks, one block per line as a rule.
import type { SessionEvent } from "../transcript/index.ts";
import { isUserPrompt, userBlocks } from "./claude-blocks.ts";
import {
	assistantContent,
	CallPairer,
	CLAUDE_TOOL_BLOCK,
	CONTEXT_OVERFLOW,
	type ScanStats,
} from "../transcript/index.ts";
import { asObject, parseJsonLine, peekField, type SessionParser } from "./session-parser.ts";

// Lines these readers never look inside; hook `progress` lines are a third of a log's bytes.
const IGNORED = new Set(["progress", "file-history-snapshot", "summary"]);
/** Where a compaction's summary starts (the user side of the log). */
const CONTINUED = "This session is being continued from a previous conversation";

export function claudeCodeParser(stats: ScanStats): SessionParser {
	const pairer = new CallPairer(stats);
	let sidechain: boolean | undefined;
	// The blocks of one API message are logged as separate lines sharing `message.id`.
	let lastMessageId: unknown;
	// A compaction is logged as a boundary line and then its summary: one compaction, not two.
	let boundary = false;
	// Prompts typed while the agent worked are logged as queue operations and reach the model
	// mid-turn; one that later arrives as an ordinary user message is not counted twice.
	const queued = new Map<string, number>();

	const prompt = (text: string, out: SessionEvent[]) => {
		const waiting = queued.get(text);
		if (waiting) {
			if (waiting === 1) queued.delete(text);
			else queued.set(text, waiting - 1);
			return;
		}
		if (isUserPrompt(text)) out.push({ type: "prompt", text });
	};

	return {
		line(text, out) {
			const peeked = peekField(text, '"type":"');
			if (peeked !== undefined && IGNORED.has(peeked)) {
				stats.lines++;
				return;
			}
			const entry = parseJsonLine(text, stats);
			if (!entry) return;
			const type = entry.type;
			if (type === "system") {
				if (entry.subtype === "compact_boundary") {
					out.push({ type: "compaction" });
					boundary = true;
				}
				return;
			}
			if (type === "queue-operation") {
				const content = entry.content;
				if (entry.operation === "enqueue" && typeof content === "string" && isUserPrompt(content)) {
					out.push({ type: "prompt", text: content });
					queued.set(content, (queued.get(content) ?? 0) + 1);
				}
				return;
			}
			// Every other line type (metadata such as custom-title, agent-name, last-prompt,
			// permission-mode, and types later versions add) is skipped and counted.
			if (type !== "user" && type !== "assistant") {
				if (type !== "queue-operation") stats.otherLines++;
				return;
			}
			// A sub-agent's sidechain lines inside a main log belong to another conversation.
			const side = entry.isSidechain === true;
			if (sidechain === undefined) sidechain = side;
			else if (side !== sidechain) return;
			const message = asObject(entry.message);
			if (!message) return;
			if (type === "assistant") {
				if (message.id === undefined || message.id !== lastMessageId) pairer.newTurn();
				lastMessageId = message.id;
				const apiError = entry.isApiErrorMessage === true;
				assistantContent(message.content, CLAUDE_TOOL_BLOCK, pairer, out, apiError);
				if (apiError && CONTEXT_OVERFLOW.test(JSON.stringify(message.content ?? "").slice(0, 2000)))
					out.push({ type: "compaction", overflow: true });
				return;
			}
			const content = message.content;
			const first = Array.isArray(content) ? asObject(content[0])?.text : content;
			if (typeof first === "string" && first.trimStart().startsWith(CONTINUED)) {
				if (!boundary) out.push({ type: "compaction" });
				boundary = false;
			}
			if (typeof content === "string") {
				if (entry.isMeta !== true) prompt(content, out);
			} else if (Array.isArray(content)) {
				const words = userBlocks(content, pairer, out, entry.toolUseResult);
				if (words && entry.isMeta !== true) prompt(words, out);
			}
		},
		end(out) {
			pairer.flush(out);
		},
	};
}
