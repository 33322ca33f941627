// The user's word over the arbiter: a call an `ask` rule sent to the arbiter and that was
// denied (by the arbiter, or by a fail-safe such as a timeout) is kept under a short id; the
// user may allow that exact call once (`/subagents-watchdog allow <id>`), and the child's next
// identical call then runs. A rule's `deny` never comes here, so it can never be allowed this
// way. One book per tree of children in a process: the main session makes it. Pure.

/** One denied ask the user may allow. */
export interface DeniedAsk {
	id: string;
	/** Who asked: the child's label path ("lead > tester") or role. */
	who: string;
	tool: string;
	/** Why it was denied (the arbiter's reason, or the fail-safe's). */
	reason: string;
	at: number;
}

/** Denials kept for the user to allow; the oldest go past this. */
const KEPT = 50;

export class UserAllowances {
	private readonly denials = new Map<string, DeniedAsk & { key: string }>();
	private readonly allowed = new Set<string>();
	private counter = 0;

	/** A denied ask of `key` (the child and the call's fingerprint); the same call keeps its id. */
	denied(key: string, ask: Omit<DeniedAsk, "id" | "at">, now = Date.now()): string {
		for (const d of this.denials.values()) if (d.key === key) return d.id;
		// Short enough to type: three base-36 digits of the time, two of a counter.
		const stamp = (now % 46_656).toString(36).padStart(3, "0");
		const id = `${stamp}${(this.counter++ % 1296).toString(36).padStart(2, "0")}`;
		this.denials.set(id, { ...ask, id, at: now, key });
		if (this.denials.size > KEPT) this.denials.delete(this.denials.keys().next().value as string);
		return id;
	}

	/** The user allows the denied call `id` once; undefined when there is no such denial. */
	allow(id: string): DeniedAsk | undefined {
		const d = this.denials.get(id.trim());
		if (!d) return undefined;
		this.denials.delete(d.id);
		this.allowed.add(d.key);
		const { key: _key, ...ask } = d;
		return ask;
	}

	/** Whether the user allowed this call: true once, then the allowance is spent. */
	take(key: string): boolean {
		return this.allowed.delete(key);
	}

	/** The denials of one child (its run and label path) still waiting for the user, as "id tool". */
	pendingFor(child: string): string[] {
		return [...this.denials.values()].filter((d) => d.key.startsWith(`${child}\0`)).map((d) => `${d.id} ${d.tool}`);
	}

	/** Denials the user may still allow, newest first. */
	pending(): DeniedAsk[] {
		return [...this.denials.values()].reverse().map(({ key: _key, ...ask }) => ask);
	}
}
