// Which file is the project's settings. Pi 1.6 reads only `<cwd>/<configDirName>/settings.json`
// (its FileSettingsStorage joins the working folder, and trust is resolved for that folder).
// Started in a subfolder of a repository, that misses the rules kept at the repository's top,
// so when the working folder has no file of its own the watchdog takes the nearest one on the
// way up to the repository's top folder (the nearest folder with `.git`). Looked at with
// lstat only; whether it may be opened is the trust snapshot's question.
import { lstatSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export interface ProjectSettingsFile {
	path: string;
	/** The folder holding the configuration folder: links in the file may lead inside it. */
	root: string;
	/** Set when the file is above the working folder. */
	above?: string;
}

const MAX_LEVELS = 64;

export function findProjectSettings(cwd: string, configDirName: string): ProjectSettingsFile {
	const start = resolve(cwd);
	const own = { path: join(start, configDirName, "settings.json"), root: start };
	if (there(own.path)) return own;
	const top = repositoryTop(start);
	if (!top || top === start) return own;
	for (let dir = dirname(start), n = 0; n < MAX_LEVELS; dir = dirname(dir), n++) {
		const path = join(dir, configDirName, "settings.json");
		const above = `found above the working folder ${start}, at or below the repository's top ${top}`;
		if (there(path)) return { path, root: dir, above };
		if (dir === top || dirname(dir) === dir) break;
	}
	return own;
}

/** The nearest folder at or above `start` holding `.git` (a worktree's `.git` file counts). */
export function repositoryTop(start: string): string | undefined {
	for (let dir = start, n = 0; n < MAX_LEVELS; dir = dirname(dir), n++) {
		if (there(join(dir, ".git"))) return dir;
		if (dirname(dir) === dir) return undefined;
	}
	return undefined;
}

function there(path: string): boolean {
	try {
		return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
	} catch {
		return false;
	}
}
