// Which paths a run changed, from the repository's state when it started and when it ended.
// Pure: the gate collects the marks (stat and content hash of each path git reported dirty).

export interface FileMark {
	size: number;
	mtimeMs: number;
	ino: number;
	/** Content hash (bounded for huge files); compared only when the stat differs. */
	hash: string;
}

/** Dirty paths (relative to the work tree) → their mark, or null when missing on disk. */
export type DirtyMarks = Map<string, FileMark | null>;

export function sameStat(a: FileMark, b: FileMark): boolean {
	return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

/**
 * Paths whose content differs between the start and the end of a run. A path clean at both
 * ends is unchanged (a change that was reverted is no change). A path that became dirty but
 * was last modified before the run started (`modifiedBefore`) was changed by someone else
 * between runs, not by this run.
 */
export function changedPaths(start: DirtyMarks, end: DirtyMarks, modifiedBefore: number): string[] {
	const out: string[] = [];
	for (const path of new Set([...start.keys(), ...end.keys()])) {
		const s = start.get(path);
		const e = end.get(path);
		if (!start.has(path)) {
			if (e && e.mtimeMs < modifiedBefore) continue;
			out.push(path);
		} else if (!end.has(path)) {
			out.push(path); // dirty before, clean (committed or reverted to HEAD) now
		} else if (s === null || e === null) {
			if (s !== e) out.push(path);
		} else if (s && e && !sameStat(s, e) && s.hash !== e.hash) {
			out.push(path);
		}
	}
	return out.sort();
}

/** Whether two marks hold the same content (both missing counts as the same). */
export function sameContent(a: FileMark | null, b: FileMark | null): boolean {
	if (a === null || b === null) return a === b;
	return a.hash === b.hash;
}
