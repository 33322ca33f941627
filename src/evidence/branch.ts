// A live Pi session's branch (its entries, oldest first) as the SessionEvents the evidence
// checks read: real user prompts, assistant messages (visible text; whether there was hidden
// reasoning or an error), and each tool call with its result, paired by id. Extension
// messages (the watchdog's own findings and nudges) are not prompts. Pure.
import { fromPiToolCall, type SessionEvent } from "../transcript/index.ts";
import { contentText } from "../util/index.ts";

type Entry = { type: string; message?: unknown };
type Block = { type?: unknown; text?: unknown; id?: unknown; name?: unknown; arguments?: unknown };

/**
 * Reads a branch as it grows: each `read` converts only the entries after those it has seen,
 * as long as the branch still starts with them (otherwise, after a switch to another branch or
 * session, it says so and the caller starts afresh).
 */
export class BranchReader {
	private pending = new Map<string, { name: string; args: unknown }>();
	private index = 0;
	private consumed = 0;
	private last?: object;

	/** The events of the entries not read yet, or undefined when the branch is not the one read so far. */
	read(entries: ReadonlyArray<Entry>): SessionEvent[] | undefined {
		if (this.consumed > entries.length || (this.consumed > 0 && entries[this.consumed - 1] !== this.last)) return undefined;
		const out: SessionEvent[] = [];
		for (let k = this.consumed; k < entries.length; k++) this.entry(entries[k] as Entry, out);
		this.consumed = entries.length;
		this.last = entries[entries.length - 1];
		return out;
	}

	private entry(entry: Entry, out: SessionEvent[]): void {
		if (entry.type !== "message" || !entry.message || typeof entry.message !== "object") return;
		const m = entry.message as { role?: unknown; content?: unknown; stopReason?: unknown; toolCallId?: unknown; toolName?: unknown; isError?: unknown; details?: unknown };
		if (m.role === "user") {
			const text = contentText(m.content);
			if (text.trim()) out.push({ type: "prompt", text });
		} else if (m.role === "assistant") {
			let text = "";
			let calls = 0;
			let thinking = false;
			for (const b of Array.isArray(m.content) ? (m.content as Block[]) : []) {
				if (!b || typeof b !== "object") continue;
				if (b.type === "text" && typeof b.text === "string" && b.text.trim()) text += text ? `\n${b.text}` : b.text;
				else if (b.type === "toolCall") {
					calls++;
					this.pending.set(String(b.id ?? ""), { name: typeof b.name === "string" ? b.name : "", args: b.arguments });
				} else if (b.type === "thinking" || b.type === "redacted_thinking") thinking = true;
			}
			const error = m.stopReason === "error" || m.stopReason === "aborted";
			if (text || calls === 0) out.push({ type: "assistant", text, ...(thinking && calls === 0 ? { thinking } : {}), ...(error ? { error } : {}) });
		} else if (m.role === "toolResult") {
			const id = String(m.toolCallId ?? "");
			const call = this.pending.get(id);
			this.pending.delete(id);
			out.push({ type: "call", call: fromPiToolCall(this.index++, call?.name ?? (typeof m.toolName === "string" ? m.toolName : ""), call?.args, m.content, m.isError === true, m.details) });
		}
	}
}

/** The whole branch as events. */
export function eventsFromBranch(entries: ReadonlyArray<Entry>): SessionEvent[] {
	return new BranchReader().read(entries) ?? [];
}
