// Gemini CLI session files (`~/.gemini/tmp/<project hash>/chats/session-*.json`): one JSON
// document, `{sessionId, projectHash, startTime, lastUpdated, messages}`, each message `user` or
// `gemini` (others: info, error, warning) with `content`, and a gemini message's `toolCalls`
// (`{id, name, args, result, status, resultDisplay}`) already paired with their results. The
// document is read whole at the end (pretty-printed, it spans many lines), up to a bound.
import type { SessionEvent } from "../transcript/index.ts";
import { CallPairer, resultText, type ScanStats } from "../transcript/index.ts";
import { asObject, type SessionParser } from "./session-parser.ts";

/** The largest session document read (a bigger one is counted malformed, not parsed). */
const MAX_CHARS = 64 * 1024 * 1024;

/** A part list's text: plain text parts and function responses' output or error. */
function partsText(parts: unknown): string {
	if (typeof parts === "string") return parts;
	const list = Array.isArray(parts) ? parts : parts ? [parts] : [];
	const out: string[] = [];
	for (const p of list) {
		if (typeof p === "string") out.push(p);
		const part = asObject(p);
		if (!part) continue;
		if (typeof part.text === "string") out.push(part.text);
		const response = asObject(asObject(part.functionResponse)?.response);
		for (const key of ["output", "error", "content"] as const) {
			const v = response?.[key];
			if (typeof v === "string") out.push(v);
		}
	}
	return out.join("\n");
}

function toolCall(pairer: CallPairer, call: Record<string, unknown>, n: number, out: SessionEvent[]): void {
	const id = typeof call.id === "string" ? call.id : `gemini-${n}`;
	const name = typeof call.name === "string" ? call.name : "";
	pairer.call(id, name, asObject(call.args) ?? {});
	const status = typeof call.status === "string" ? call.status : "";
	let text = partsText(call.result);
	if (!text && typeof call.resultDisplay === "string") text = call.resultDisplay;
	const hasError = Array.isArray(call.result)
		? call.result.some((p) => asObject(asObject(asObject(p)?.functionResponse)?.response)?.error !== undefined)
		: false;
	// A call the user turned down reads as a refusal to the evidence checks.
	if (status === "cancelled") text = `${text ? `${text}\n` : ""}The user declined this tool call (cancelled).`;
	pairer.result(id, resultText(text), status === "error" || status === "cancelled" || hasError, undefined, out);
}

export function geminiParser(stats: ScanStats): SessionParser {
	const lines: string[] = [];
	let chars = 0;
	let tooBig = false;
	return {
		line(text) {
			if (tooBig) return;
			chars += text.length + 1;
			if (chars > MAX_CHARS) {
				tooBig = true;
				lines.length = 0;
				return;
			}
			lines.push(text);
		},
		end(out) {
			stats.lines++;
			if (tooBig) {
				stats.malformed++;
				return;
			}
			let doc: Record<string, unknown> | undefined;
			try {
				doc = asObject(JSON.parse(lines.join("\n")));
			} catch {
				doc = undefined;
			}
			lines.length = 0;
			if (!doc || !Array.isArray(doc.messages)) {
				stats.malformed++;
				return;
			}
			const pairer = new CallPairer(stats);
			let n = 0;
			for (const raw of doc.messages) {
				const m = asObject(raw);
				if (!m) continue;
				const words = partsText(m.content);
				if (m.type === "user") {
					if (words.trim() && !words.trimStart().startsWith("/")) out.push({ type: "prompt", text: words });
				} else if (m.type === "gemini") {
					pairer.newTurn();
					const calls = Array.isArray(m.toolCalls) ? m.toolCalls : [];
					const thoughts = Array.isArray(m.thoughts) && m.thoughts.length > 0;
					if (words.trim() || calls.length === 0)
						out.push({ type: "assistant", text: words, ...(thoughts && !calls.length ? { thinking: true } : {}) });
					for (const c of calls) {
						const call = asObject(c);
						if (call) toolCall(pairer, call, n++, out);
					}
				} else stats.otherLines++;
			}
			pairer.flush(out);
		},
	};
}
