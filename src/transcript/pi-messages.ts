// Pi's messages as SessionEvents, the one reader for a live session's branch and a recorded
// session: real user prompts, assistant messages (visible text; whether there was hidden
// reasoning or an error), and each tool call with its result, paired by id (pairing.ts). Pure.
import { isPlainObject } from "../util/index.ts";
import { piEditEvidence, resultText } from "./call-record.ts";
import { isAbortedResult, nestedCallsOf } from "./nested.ts";
import type { CallPairer } from "./pairing.ts";
import type { SessionEvent } from "./tool-call.ts";

/** How a recorder writes a tool call inside an assistant message. */
export interface ToolBlockShape {
	type: string;
	args: string;
}

/** A provider error that says the conversation no longer fits the model's context. */
export const CONTEXT_OVERFLOW = new RegExp(
	String.raw`prompt is too long|context[ _-]?(?:length|window)[ _-]?(?:exceeded|limit)|` +
		String.raw`exceeds? the (?:model's )?context|maximum context length|too many tokens|input is too long`,
	"i",
);

export const PI_TOOL_BLOCK: ToolBlockShape = { type: "toolCall", args: "arguments" };
export const CLAUDE_TOOL_BLOCK: ToolBlockShape = { type: "tool_use", args: "input" };

/**
 * An assistant message's visible text (one event) and its tool calls (to the pairer). A message
 * with no tool calls is a stop and always gives an event, empty or not, saying whether it held
 * hidden reasoning: the unfinished-stop detector needs to see an empty final message.
 */
export function assistantContent(
	content: unknown,
	shape: ToolBlockShape,
	pairer: CallPairer,
	out: SessionEvent[],
	error = false,
): void {
	if (!Array.isArray(content)) {
		if (typeof content === "string" && (content.trim() || error))
			out.push({ type: "assistant", text: content, ...(error ? { error } : {}) });
		return;
	}
	let text = "";
	let calls = 0;
	let thinking = false;
	for (const block of content) {
		const b = isPlainObject(block) ? block : undefined;
		if (!b) continue;
		if (b.type === "text" && typeof b.text === "string" && b.text.trim()) text += text ? `\n${b.text}` : b.text;
		else if (b.type === shape.type) {
			calls++;
			pairer.call(b.id, b.name, b[shape.args]);
			// hidden reasoning: never its text
		} else if (b.type === "thinking" || b.type === "redacted_thinking") thinking = true;
	}
	if (text || calls === 0)
		out.push({
			type: "assistant",
			text,
			...(thinking && calls === 0 ? { thinking } : {}),
			...(error ? { error } : {}),
		});
}

/**
 * The assistant and tool-result parts of one Pi message (user messages are the caller's: not every one is a
 * prompt).
 */
export function piMessage(message: Record<string, unknown>, pairer: CallPairer, out: SessionEvent[]): void {
	if (message.role === "assistant") {
		pairer.newTurn();
		assistantContent(
			message.content,
			PI_TOOL_BLOCK,
			pairer,
			out,
			message.stopReason === "error" || message.stopReason === "aborted",
		);
		if (typeof message.errorMessage === "string" && CONTEXT_OVERFLOW.test(message.errorMessage.slice(0, 2000)))
			out.push({ type: "compaction", overflow: true });
	} else if (message.role === "toolResult") {
		// A call Esc cancelled did nothing: answered, but no call to judge.
		if (isAbortedResult(message.content, message.isError === true)) pairer.drop(message.toolCallId, out);
		else
			pairer.result(
				message.toolCallId,
				resultText(message.content),
				message.isError === true,
				piEditEvidence(message.details),
				out,
				nestedCallsOf(message),
			);
	}
}
