// Claude Code sessions exported as Markdown ("# Claude Session Export", "Full Conversation"):
// sections `### User` / `### Assistant`, a `> timestamp` line, then either a JSON array of
// Claude API blocks or plain text (a typed prompt), closed by `---`. Parsed one section at a time.
import type { SessionEvent } from "../transcript/index.ts";
import { isCommandWrapper, isUserPrompt, userBlocks } from "./claude-blocks.ts";
import { assistantContent, CallPairer, CLAUDE_TOOL_BLOCK, type ScanStats } from "../transcript/index.ts";
import type { SessionParser } from "./session-parser.ts";

const SECTION = /^### (User|Assistant)\s*$/;
const JSON_BLOCKS = /^\[\s*(\{|\])/;
const HASH = 35;
const DASH = 45;

/** Whitespace only; stops at the first other character, so it costs nothing on most lines. */
function isBlank(line: string): boolean {
	for (let i = 0; i < line.length; i++) {
		const c = line.charCodeAt(i);
		if (c !== 32 && c !== 9 && c !== 13) return false;
	}
	return true;
}

export function claudeExportParser(stats: ScanStats): SessionParser {
	const pairer = new CallPairer(stats);
	let role: "User" | "Assistant" | undefined;
	let body: string[] = [];
	// Whether the last non-blank line was the `---` that closes a section.
	let closed = false;
	let expectStamp = false;
	let previous: "User" | "Assistant" | undefined;
	// A slash command's expanded template follows its wrapper as a user text message; the
	// export drops the flag that marks it, so it is recognised by position.
	let afterCommand = false;

	const finish = (out: SessionEvent[]) => {
		if (!role) return;
		stats.lines++;
		let end = body.length;
		while (end > 0 && isBlank(body[end - 1])) end--;
		if (end > 0 && body[end - 1].trim() === "---") end--;
		while (end > 0 && isBlank(body[end - 1])) end--;
		let start = 0;
		while (start < end && isBlank(body[start])) start++;
		const text = body.slice(start, end).join("\n");
		body = [];
		let blocks: unknown[] | undefined;
		if (JSON_BLOCKS.test(text)) {
			try {
				const value = JSON.parse(text);
				if (Array.isArray(value)) blocks = value;
			} catch {
				stats.malformed++;
				return;
			}
		}
		if (role === "Assistant") {
			// The export writes each block as its own section: a run of assistant sections is one turn.
			if (previous !== "Assistant") pairer.newTurn();
			previous = role;
			afterCommand = false;
			assistantContent(blocks ?? text, CLAUDE_TOOL_BLOCK, pairer, out);
			return;
		}
		previous = role;
		const expansion = afterCommand;
		afterCommand = false;
		if (!blocks) {
			if (isCommandWrapper(text)) afterCommand = true;
			else if (isUserPrompt(text)) out.push({ type: "prompt", text });
			return;
		}
		const words = userBlocks(blocks, pairer, out);
		if (!words || expansion) return;
		if (isCommandWrapper(words)) afterCommand = true;
		else if (isUserPrompt(words)) out.push({ type: "prompt", text: words });
	};

	return {
		line(text, out) {
			// A header counts only where a section may start: before the first one, or after
			// the `---` that closes the previous one (so a prompt quoting "### User" stays text).
			if (text.charCodeAt(0) === HASH && SECTION.test(text) && (role === undefined || closed)) {
				finish(out);
				role = text.startsWith("### User") ? "User" : "Assistant";
				closed = false;
				expectStamp = true;
				return;
			}
			if (role === undefined) return;
			if (expectStamp) {
				expectStamp = false;
				if (text.startsWith(">")) return;
			}
			body.push(text);
			if (!isBlank(text)) closed = text.charCodeAt(0) === DASH && text.trimEnd() === "---";
		},
		end(out) {
			finish(out);
			role = undefined;
			pairer.flush(out);
		},
	};
}
