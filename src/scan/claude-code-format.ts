// Claude Code project logs (`~/.claude/projects/<slug>/<session>.jsonl`): one JSON object per
// line; `user` and `assistant` lines carry Claude API blocks, one block per line as a rule.
import type { SessionEvent } from "../transcript/index.ts";
import { isUserPrompt, userBlocks } from "./claude-blocks.ts";
import { assistantContent, CallPairer, CLAUDE_TOOL_BLOCK, type ScanStats } from "../transcript/index.ts";
import { asObject, parseJsonLine, peekField, type SessionParser } from "./session-parser.ts";

// Lines these readers never look inside; hook `progress` lines are a third of a log's bytes.
const IGNORED = new Set(["progress", "file-history-snapshot", "system", "summary"]);

export function claudeCodeParser(stats: ScanStats): SessionParser {
	const pairer = new CallPairer(stats);
	let sidechain: boolean | undefined;
	// The blocks of one API message are logged as separate lines sharing `message.id`.
	let lastMessageId: unknown;
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
			if (type === "queue-operation") {
				const content = entry.content;
				if (entry.operation === "enqueue" && typeof content === "string" && isUserPrompt(content)) {
					out.push({ type: "prompt", text: content });
					queued.set(content, (queued.get(content) ?? 0) + 1);
				}
				return;
			}
			if (type !== "user" && type !== "assistant") return;
			// A sub-agent's sidechain lines inside a main log belong to another conversation.
			const side = entry.isSidechain === true;
			if (sidechain === undefined) sidechain = side;
			else if (side !== sidechain) return;
			const message = asObject(entry.message);
			if (!message) return;
			if (type === "assistant") {
				if (message.id === undefined || message.id !== lastMessageId) pairer.newTurn();
				lastMessageId = message.id;
				assistantContent(message.content, CLAUDE_TOOL_BLOCK, pairer, out, entry.isApiErrorMessage === true);
				return;
			}
			const content = message.content;
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
