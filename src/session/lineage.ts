// Where a session sits in a tree of children: its depth (the main session is 0, its children
// 1, theirs 2), the labels on the way down ("worker > tester"), the tightest depth an agent
// file above it allows, and the tree's deadline (set by the launch from the main session).
// Plain data: it travels to a background runner in spec.json, and to a `pi` started below a
// runner in the environment. Pure.

export interface Lineage {
	/** 0 for the main session, 1 for its children, 2 for theirs. */
	depth: number;
	/** Child labels from the main session's child down to this one; empty for the main session. */
	path: string[];
	/** The lowest `maxDepth` an agent file on the way down set; absent when none did. */
	maxDepth?: number;
	/** Epoch ms by which everything below the main session's launch must end; absent at the top. */
	deadline?: number;
}

export const TOP: Lineage = { depth: 0, path: [] };

/** How a path reads to a user and in history: "worker > tester". */
export function pathText(path: readonly string[]): string {
	return path.join(" > ");
}

/** The deepest a child may sit below this session: the settings' limit, lowered by agent files above. */
export function depthLimit(lineage: Lineage, settingsMax: number): number {
	return Math.min(settingsMax, lineage.maxDepth ?? settingsMax);
}

/** Why this session may not launch (the children would sit past the limit); undefined when it may. */
export function tooDeep(lineage: Lineage, settingsMax: number): string | undefined {
	const limit = depthLimit(lineage, settingsMax);
	const depth = lineage.depth + 1;
	if (depth <= limit) return undefined;
	const here = lineage.path.length ? ` (${pathText(lineage.path)})` : "";
	const why =
		lineage.maxDepth !== undefined && lineage.maxDepth < settingsMax
			? `an agent file above it sets maxDepth ${lineage.maxDepth}`
			: `children.maxDepth is ${settingsMax}`;
	return (
		`not launched: this agent${here} is at depth ${lineage.depth}, so its children would be at depth ${depth}, ` +
		`and ${why}. Nothing was started. Do the work yourself, or report back to your parent and let it launch.`
	);
}

/**
 * A child's lineage as it starts: one level down, its label on the path, its agent file's
 * `maxDepth` taken in (it can only lower the limit), and the deadline: the tree's, else (a
 * child of the main session) its own start plus its timeout.
 */
export function childLineage(
	parent: Lineage,
	label: string,
	agentMaxDepth: number | undefined,
	timeoutMs: number,
	now: number,
): Lineage {
	const limits = [parent.maxDepth, agentMaxDepth].filter((n): n is number => n !== undefined);
	return {
		depth: parent.depth + 1,
		path: [...parent.path, label],
		...(limits.length ? { maxDepth: Math.min(...limits) } : {}),
		deadline: parent.deadline ?? now + timeoutMs,
	};
}

/** A child's own deadline under the tree's: the smaller; at least 1 ms, so a passed deadline stops it at once. */
export function boundedTimeout(parent: Lineage, timeoutMs: number, now: number): number {
	if (parent.deadline === undefined) return timeoutMs;
	return Math.max(1, Math.min(timeoutMs, parent.deadline - now));
}

/** A lineage read from untrusted JSON (a run's spec, the environment); TOP when it is not one. */
export function readLineage(value: unknown): Lineage {
	if (typeof value !== "object" || value === null) return TOP;
	const v = value as Record<string, unknown>;
	const whole = (n: unknown, min: number) => (Number.isInteger(n) && (n as number) >= min ? (n as number) : undefined);
	const depth = whole(v.depth, 0);
	if (depth === undefined || depth > 64) return TOP;
	const path = Array.isArray(v.path) ? v.path.filter((p): p is string => typeof p === "string").slice(0, 64) : [];
	const maxDepth = whole(v.maxDepth, 0);
	const deadline = whole(v.deadline, 1);
	return {
		depth,
		path,
		...(maxDepth !== undefined ? { maxDepth } : {}),
		...(deadline !== undefined ? { deadline } : {}),
	};
}

/**
 * The tree's share of `children.concurrency`: every running descendant in this process holds
 * one slot, whatever its depth. A child waiting on its own foreground launch lends its slot to
 * its children (it runs nothing meanwhile), so a full tree never waits on itself.
 */
export class TreeSlots {
	private running = 0;
	private readonly waiting: Array<() => void> = [];
	private readonly limit: () => number;

	constructor(limit: () => number) {
		this.limit = limit;
	}

	/** How many descendants run now. */
	get inUse(): number {
		return this.running;
	}

	/** Waits for a slot; resolves with its release, or undefined when `signal` aborts first. */
	async acquire(signal?: AbortSignal): Promise<(() => void) | undefined> {
		while (this.running >= Math.max(1, this.limit())) {
			if (signal?.aborted) return undefined;
			await new Promise<void>((resolve) => {
				const wake = () => {
					signal?.removeEventListener("abort", wake);
					const i = this.waiting.indexOf(wake);
					if (i >= 0) this.waiting.splice(i, 1);
					resolve();
				};
				this.waiting.push(wake);
				signal?.addEventListener("abort", wake, { once: true });
			});
		}
		if (signal?.aborted) return undefined;
		this.running++;
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.free();
		};
	}

	/** A slot given back for a while (its holder waits on its children); `take` claims one again. */
	lend(): { take(signal?: AbortSignal): Promise<void> } {
		this.free();
		return {
			// The holder's own release frees the slot taken back; a stopped wait takes it past the limit,
			// so that release stays balanced.
			take: async (signal) => {
				if (!(await this.acquire(signal))) this.running++;
			},
		};
	}

	private free(): void {
		this.running = Math.max(0, this.running - 1);
		this.waiting.shift()?.();
	}
}
