// Walks the files under a folder for find and grep: in sorted order, skipping `.git` and
// `node_modules`, never descending into symlinked folders (no cycles, no way out of the root),
// and yielding a symlinked file only when its real path stays inside the root. Whoever opens a
// yielded file still checks the descriptor (openConfined): the tree may change meanwhile.
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { insideRealRoot } from "./confine.ts";
import { EventLoopTurns } from "./event-loop-turns.ts";

export const SKIPPED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules"]);

export interface WalkedFile {
	/** Real path, to read from. */
	abs: string;
	/** Path relative to the repository root, `/`-separated. */
	rel: string;
}

/**
 * Stops quietly when `signal` aborts; callers check `signal.aborted` afterwards. The time the
 * caller spends on each file counts too: every few milliseconds the walk lets the event loop
 * run, so Pi stays responsive and a deadline's timer can fire and abort it.
 */
export async function* walkFiles(start: WalkedFile, realRoot: string, signal: AbortSignal): AsyncGenerator<WalkedFile> {
	const stack: WalkedFile[] = [start];
	const turns = new EventLoopTurns();
	while (stack.length > 0) {
		if (signal.aborted) return;
		const dir = stack.pop() as WalkedFile;
		let entries: Dirent[];
		try {
			entries = await readdir(dir.abs, { withFileTypes: true });
		} catch {
			continue; // unreadable folders are skipped, not fatal
		}
		entries.sort((a, b) => compareNames(a.name, b.name));
		const subdirs: WalkedFile[] = [];
		for (const entry of entries) {
			await turns.maybeYield();
			if (signal.aborted) return;
			const child = { abs: join(dir.abs, entry.name), rel: dir.rel === "" ? entry.name : `${dir.rel}/${entry.name}` };
			if (entry.isDirectory()) {
				if (!SKIPPED_DIRS.has(entry.name)) subdirs.push(child);
			} else if (entry.isFile()) {
				yield child;
			} else if (entry.isSymbolicLink()) {
				const target = await linkedFile(child.abs, realRoot);
				if (target) yield { abs: target, rel: child.rel };
			}
		}
		// Reversed onto the stack so that folders come out in sorted order.
		for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
	}
}

/** The real path of a symlink that ends at a regular file inside the root, else null. */
async function linkedFile(abs: string, realRoot: string): Promise<string | null> {
	try {
		const target = await realpath(abs);
		if (!insideRealRoot(realRoot, target)) return null;
		return (await stat(target)).isFile() ? target : null;
	} catch {
		return null; // broken link
	}
}

export function compareNames(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}
