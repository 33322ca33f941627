// A live Pi session's branch (its entries, oldest first) as SessionEvents, read the way a
// recorded session file is (pi-messages.ts): the evidence checks see the same events live as
// `pi-watchdog scan` sees afterwards. Extension messages (the watchdog's own findings and
// nudges) are not prompts. Pure.
import { contentText, isPlainObject } from "../util/index.ts";
import { CallPairer, newStats } from "./pairing.ts";
import { piMessage } from "./pi-messages.ts";
import type { SessionEvent } from "./tool-call.ts";

type Entry = { type: string; message?: unknown };

/**
 * Reads a branch as it grows: each `read` converts only the entries after those it has seen,
 * as long as the branch still starts with them (otherwise, after a switch to another branch or
 * session, it says so and the caller starts afresh).
 */
export class BranchReader {
	private pairer = new CallPairer(newStats());
	private consumed = 0;
	private last?: object;

	/** The events of the entries not read yet, or undefined when the branch is not the one read so far. */
	read(entries: ReadonlyArray<Entry>): SessionEvent[] | undefined {
		if (this.consumed > entries.length || (this.consumed > 0 && entries[this.consumed - 1] !== this.last))
			return undefined;
		const out: SessionEvent[] = [];
		for (let k = this.consumed; k < entries.length; k++) this.entry(entries[k] as Entry, out);
		this.consumed = entries.length;
		this.last = entries[entries.length - 1];
		return out;
	}

	private entry(entry: Entry, out: SessionEvent[]): void {
		if (entry.type !== "message" || !isPlainObject(entry.message)) return;
		const m = entry.message;
		if (m.role === "user") {
			const text = contentText(m.content);
			if (text.trim()) out.push({ type: "prompt", text });
		} else piMessage(m, this.pairer, out);
	}
}

/** The whole branch as events. */
export function eventsFromBranch(entries: ReadonlyArray<Entry>): SessionEvent[] {
	return new BranchReader().read(entries) ?? [];
}
