// Pi's own session files, and pi-subagents transcripts, which carry the same Pi messages:
// assistant text and `toolCall` blocks, `toolResult` messages paired by `toolCallId`.
import { CallPairer, piMessage, type ScanStats } from "../transcript/index.ts";
import {
	asObject,
	parseJsonLine,
	parseToolResultLine,
	peekField,
	type SessionParser,
	visibleText,
} from "./session-parser.ts";

/** Pi session files: a `session` header, then entries; only `message` entries matter here. */
export function piParser(stats: ScanStats): SessionParser {
	const pairer = new CallPairer(stats);
	return {
		line(text, out) {
			// Only message entries matter; the others are not parsed when that is certain.
			const type = peekField(text, '"type":"');
			if (type === "compaction") {
				stats.lines++;
				out.push({ type: "compaction" });
				return;
			}
			if (type !== undefined && type !== "message") {
				stats.lines++;
				return;
			}
			// A tool result's bash text repeated in details.truncation is left unparsed.
			const entry = text.includes('"role":"toolResult"')
				? parseToolResultLine(text, stats, false, (e) => asObject(e.message)?.role === "toolResult")
				: parseJsonLine(text, stats);
			if (entry?.type === "compaction") out.push({ type: "compaction" });
			if (entry?.type !== "message") return;
			const message = asObject(entry.message);
			if (!message) return;
			if (message.role === "user") {
				const prompt = visibleText(message.content);
				if (prompt.trim()) out.push({ type: "prompt", text: prompt });
			} else piMessage(message, pairer, out);
		},
		end(out) {
			pairer.flush(out);
		},
	};
}

/** A record whose only text read is its message's: not the initial prompt (whose top-level text may be read). */
function isSubagentsToolResult(record: Record<string, unknown>): boolean {
	return record.sourceEventType !== "initial_prompt" && asObject(record.message)?.role === "toolResult";
}

/**
 * pi-subagents transcripts: the prompt is the `initial_prompt` line; later user messages are
 * its "Task: …" echo and harness notices, not prompts. tool_start/tool_end carry no ids or
 * results, so the Pi messages are used instead.
 */
export function piSubagentsParser(stats: ScanStats): SessionParser {
	const pairer = new CallPairer(stats);
	return {
		line(text, out) {
			// tool_start/tool_end/stderr lines are not parsed when that is certain.
			const kind = peekField(text, '"recordType":"');
			if (kind !== undefined && kind !== "message") {
				stats.lines++;
				return;
			}
			// A tool result's top-level `text` repeats its message's content: left unparsed.
			const record =
				peekField(text, '"role":"') === "toolResult"
					? parseToolResultLine(text, stats, true, isSubagentsToolResult)
					: parseJsonLine(text, stats);
			if (record?.recordType !== "message") return;
			const message = asObject(record.message);
			if (record.sourceEventType === "initial_prompt") {
				const prompt = visibleText(message?.content) || (typeof record.text === "string" ? record.text : "");
				if (prompt.trim()) out.push({ type: "prompt", text: prompt });
				return;
			}
			if (message) piMessage(message, pairer, out);
		},
		end(out) {
			pairer.flush(out);
		},
	};
}
