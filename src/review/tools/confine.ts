// Keeps every path the reviewer names inside the repository root. The check is made twice:
// on the path as written (no `..` escapes, no absolute paths elsewhere, no `~`), and on its
// real path, so a symlink inside the repository cannot lead the reviewer outside it.
import { realpathSync } from "node:fs";

// The libc realpath: Node's own resolves a symlink with lstat then readlink, and a path swapped
// between the two fails with EINVAL instead of resolving to what it is now.
const realPath = realpathSync.native;
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

export type ConfinedPath = { ok: true; abs: string; rel: string; realRoot: string } | { ok: false; error: string };

/** Said of a path whose file turns out to be outside the repository, by every tool alike. */
export const OUTSIDE_LINK =
	"goes through a symbolic link that points outside the repository; only files inside the repository can be read";

/**
 * Resolves `input` against `root`. `abs` is the real path to use for reading (symlinks
 * resolved); `rel` is the path as the reviewer named it, relative to the root with `/`
 * separators ("" for the root itself); `realRoot` the root's real path. Files are then opened
 * with openConfined, which checks the descriptor again: the path may change in between.
 */
export function confinePath(root: string, input: string): ConfinedPath {
	if (input.includes("\0")) return refuse("the path contains a NUL character");
	const path = input.trim();
	const shown = JSON.stringify(input);
	if (path.startsWith("~")) {
		return refuse(
			`${shown} starts with ~ (a home folder), which is outside the repository; give ` +
				`a path relative to the repository root (write ./~name for a file really named like that)`,
		);
	}
	const rootAbs = resolve(root);
	let realRoot: string;
	try {
		realRoot = realPath(rootAbs);
	} catch (error) {
		return refuse(`the repository root ${rootAbs} cannot be read (${(error as Error).message})`);
	}

	const abs = resolve(rootAbs, path);
	let rel = relative(rootAbs, abs);
	// An absolute path may name the root through its real path (e.g. /private/tmp on macOS).
	if (leaves(rel) && isAbsolute(path) && !leaves(relative(realRoot, abs))) rel = relative(realRoot, abs);
	if (leaves(rel)) {
		return refuse(
			isAbsolute(path)
				? `${shown} is outside the repository; give a path relative to the repository root`
				: `${shown} leaves the repository root; give a path inside the repository`,
		);
	}
	if (isGitDir(rel)) return refuse(gitDirMessage(shown));

	const real = realPathOf(abs);
	if (!real.ok) return refuse(`${shown} cannot be resolved (${real.error})`);
	const realRel = relative(realRoot, real.path);
	if (leaves(realRel)) return refuse(`${shown} ${OUTSIDE_LINK}`);
	if (isGitDir(realRel)) return refuse(gitDirMessage(shown));
	return { ok: true, abs: real.path, rel: toSlashes(rel), realRoot };
}

/** True when a real path lies inside the real root and outside `.git`; for directory walks. */
export function insideRealRoot(realRoot: string, realPath: string): boolean {
	const rel = relative(realRoot, realPath);
	return !leaves(rel) && !isGitDir(rel);
}

export function toSlashes(path: string): string {
	return sep === "/" ? path : path.split(sep).join("/");
}

function leaves(rel: string): boolean {
	return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function isGitDir(rel: string): boolean {
	// Any `.git` segment (nested repositories too); case-insensitive, as on macOS and Windows.
	return rel.split(sep).some((segment) => segment.toLowerCase() === ".git");
}

function gitDirMessage(shown: string): string {
	return `${shown} is inside .git, which the reviewer may not read; use watchdog_diff to see what changed`;
}

/** Real path of `abs`; for a missing path, the real path of its nearest existing ancestor plus the rest. */
function realPathOf(abs: string): { ok: true; path: string } | { ok: false; error: string } {
	const rest: string[] = [];
	let current = abs;
	for (;;) {
		try {
			return { ok: true, path: join(realPath(current), ...rest) };
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code !== "ENOENT" && code !== "ENOTDIR") return { ok: false, error: (error as Error).message };
			const parent = dirname(current);
			if (parent === current) return { ok: false, error: "no part of it exists" };
			rest.unshift(basename(current));
			current = parent;
		}
	}
}

function refuse(error: string): ConfinedPath {
	return { ok: false, error };
}
