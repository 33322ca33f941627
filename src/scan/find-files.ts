// Finding the session files to scan: named files as they are, folders walked for `.jsonl` and
// `.md` files (and Gemini CLI's `session-*.json`). The walk never follows a symbolic link out of
// the folder it started in (nor a linked folder at all: it would repeat or loop), takes only
// regular files (a FIFO named x.jsonl must not hang the scan), and stops MAX_DEPTH folders down.
import { type Dirent, lstatSync, readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import { extname, join, sep } from "node:path";
import { isInside } from "../util/index.ts";

export const MAX_DEPTH = 12;
const SESSION_EXTENSIONS = new Set([".jsonl", ".md"]);
/** Gemini CLI keeps a session as `session-<time>-<id>.json`; other JSON files are not sessions. */
const GEMINI_SESSION = /^session-.*\.json$/i;

export interface FoundFiles {
	/** Files to scan, in walk order, each once. */
	files: string[];
	/** Paths passed over, each with why. */
	skipped: Array<{ path: string; reason: string }>;
	/** Session files left out by `since`. */
	older: number;
	/** Each file's stat as the walk took it (lstat of a walked file, or of a link's target). */
	stats: Map<string, Stats>;
}

export interface FindOptions {
	/** Only files modified at or after this time (ms since the epoch). */
	since?: number;
	/** For a shared session folder: whether a file belongs (Pi sessions of one project). */
	keep?: (path: string, root: string) => boolean;
}

/** The files under each path; a path that is a file is taken whatever its name. */
export function findSessionFiles(paths: string[], options: FindOptions = {}): FoundFiles {
	const found: FoundFiles = { files: [], skipped: [], older: 0, stats: new Map() };
	const seen = new Set<string>();
	const take = (path: string, stats: Stats, root: string) => {
		const key = `${stats.dev}:${stats.ino}`;
		if (seen.has(key)) return;
		seen.add(key);
		if (options.keep && !options.keep(path, root)) return;
		if (options.since !== undefined && stats.mtimeMs < options.since) found.older++;
		else {
			found.files.push(path);
			found.stats.set(path, stats);
		}
	};
	for (const path of paths) {
		let stats: Stats;
		try {
			stats = statSync(path); // a path the user named: its links are followed
		} catch (error) {
			found.skipped.push({
				path,
				reason:
					`cannot read the file (` +
					`${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message})`,
			});
			continue;
		}
		if (stats.isDirectory()) {
			// Links last, so a file reached both ways is named by its own path.
			const links: string[] = [];
			const root = realOf(path);
			walk(path, root, 0, found, take, links);
			for (const link of links) linked(link, root, found, take);
		} else if (stats.isFile()) take(path, stats, path);
		else found.skipped.push({ path, reason: "cannot read the file (not a regular file)" });
	}
	return found;
}

type Take = (path: string, stats: Stats, root: string) => void;

function walk(dir: string, root: string, depth: number, found: FoundFiles, take: Take, links: string[]): void {
	let entries: Dirent[];
	try {
		entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
			a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
		);
	} catch (error) {
		found.skipped.push({ path: dir, reason: `cannot list the folder (${(error as Error).message})` });
		return;
	}
	// One normalisation per folder: an entry's name holds no separator, so its path is the folder's plus it.
	const folder = join(dir, sep);
	const base = folder === `.${sep}` ? "" : folder;
	for (const entry of entries) {
		const path = base + entry.name;
		if (entry.isDirectory()) {
			if (depth + 1 >= MAX_DEPTH)
				found.skipped.push({ path, reason: `more than ${MAX_DEPTH} folders deep; not walked` });
			else walk(path, root, depth + 1, found, take, links);
			continue;
		}
		if (!SESSION_EXTENSIONS.has(extname(entry.name).toLowerCase()) && !GEMINI_SESSION.test(entry.name)) continue;
		if (entry.isSymbolicLink()) links.push(path);
		else if (entry.isFile()) {
			const stats = lstatOrSkip(path, found);
			if (stats?.isFile()) take(path, stats, root);
		} else found.skipped.push({ path, reason: "not a regular file; not read" });
	}
}

/** A link to a file inside the walked folder is scanned (once); one leading out is not followed. */
function linked(path: string, root: string, found: FoundFiles, take: Take): void {
	let real: string;
	try {
		real = realpathSync(path);
	} catch {
		found.skipped.push({ path, reason: "a broken symbolic link" });
		return;
	}
	if (!isInside(root, real)) {
		found.skipped.push({ path, reason: `a symbolic link leading out of the folder (to ${real}); not followed` });
		return;
	}
	const stats = lstatOrSkip(real, found);
	if (stats?.isFile()) take(path, stats, root);
	else if (stats)
		found.skipped.push({ path, reason: "a symbolic link to something other than a regular file; not read" });
}

function lstatOrSkip(path: string, found: FoundFiles): Stats | undefined {
	try {
		return lstatSync(path);
	} catch (error) {
		found.skipped.push({ path, reason: `cannot read the file (${(error as Error).message})` });
		return undefined;
	}
}

function realOf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}
