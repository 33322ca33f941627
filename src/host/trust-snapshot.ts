// Trust as a decision about content (pure). A snapshot records, once per folder, whether the
// user decided to trust the project and what its trust-relevant files held then (absent, or a
// content hash). Later a file may be used only when a decision exists and its content is what
// was there at the decision; one that appeared or changed since is held back until the user
// decides again. No file access here: trust-files.ts reads the files.

/** A project file as found: not there, its content hash, or unreadable (never allowed). */
export type FileState = { kind: "absent" } | { kind: "file"; hash: string } | { kind: "unreadable"; reason: string };

export interface TrustSnapshot {
	/** The folder the decision is about (Pi's cwd, or a child's). */
	root: string;
	/** Whether the user decided to trust it (Pi's saved trust, Pi's prompt, `--approve`, our trust command). */
	decided: boolean;
	/** Why, in words for status. */
	why: string;
	/** Absolute path → what it held when the snapshot was taken. */
	files: Record<string, FileState>;
	takenAt: number;
}

export type Judgement =
	| { use: true }
	/** `held`: appeared or changed after the snapshot (noticed once); otherwise simply untrusted. */
	| { use: false; held: boolean; why: string };

/**
 * May the file at `path`, now in `state`, be used? Only in a project the user decided to trust,
 * and only as it was then: a file that appeared or whose content changed since is held back (an
 * unreadable one too, so a file swapped for a FIFO is never reported as the project's error).
 */
export function judgeFile(snapshot: TrustSnapshot, path: string, now: FileState): Judgement {
	const then = snapshot.files[path] ?? { kind: "absent" };
	if (now.kind === "absent") return { use: true };
	if (!sameState(then, now)) {
		const since = snapshot.decided
			? "after you decided to trust the project"
			: "after the session started, and no trust decision covers this project";
		return { use: false, held: true, why: `it ${then.kind === "absent" ? "appeared" : "changed"} ${since}` };
	}
	if (!snapshot.decided) return { use: false, held: false, why: snapshot.why };
	return { use: true };
}

function sameState(a: FileState, b: FileState): boolean {
	if (a.kind === "file" && b.kind === "file") return a.hash === b.hash;
	return a.kind === b.kind;
}

/**
 * The snapshot as seen from another folder holding the same project (a worktree the launch
 * made): a path there is judged as the path at the same place under `to`, so only content
 * identical to what was trusted is used.
 */
export function mappedSnapshot(
	snapshot: TrustSnapshot,
	from: string,
	to: string,
	rel: (a: string, b: string) => string,
	join: (a: string, b: string) => string,
): TrustSnapshot {
	const files: Record<string, FileState> = {};
	for (const [path, state] of Object.entries(snapshot.files)) files[join(from, rel(to, path))] = state;
	return { ...snapshot, root: from, files };
}

/** What was held back this session, by path (for status and the one notice). */
export class HeldBack {
	private items = new Map<string, string>();
	private noticed = false;

	add(path: string, why: string): void {
		this.items.set(path, why);
	}

	list(): Array<{ path: string; why: string }> {
		return [...this.items].map(([path, why]) => ({ path, why }));
	}

	clear(): void {
		this.items.clear();
		this.noticed = false;
	}

	/** One notice per session, naming everything held back so far; undefined once said (or while nothing is). */
	notice(command: string): string | undefined {
		if (this.items.size === 0 || this.noticed) return undefined;
		this.noticed = true;
		const list = this.list()
			.map((i) => `${i.path} (${i.why})`)
			.join("; ");
		const what = "They are not run, read or applied (status --all lists all held back).";
		return `Watchdog: held back project files: ${list}. ${what} If you trust them, run ${command}.`;
	}
}
