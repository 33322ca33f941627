// Where a built-in `edit` or `write` call lands in the repository: the real path of the file it
// writes (links followed, as the tools follow them), relative to the work tree root. A path the
// gate cannot place for certain (Pi's `~` and `@` forms, a dangling link, a file inside a
// nested repository or inside git's own folder) is "unsure", and the run falls back to git.
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { isInside } from "../util/index.ts";

export type Placement = { kind: "inside"; path: string } | { kind: "outside" } | { kind: "unsure" };

/** Spaces Pi's path handling turns into plain spaces; such a path is left to git. */
const UNUSUAL = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/;

export function placeTouched(input: unknown, cwd: string, realRoot: string, gitDirs: readonly string[]): Placement {
	const raw = (input as { path?: unknown } | undefined)?.path;
	if (
		typeof raw !== "string" ||
		!raw ||
		raw.startsWith("~") ||
		raw.startsWith("@") ||
		raw.startsWith("file:") ||
		UNUSUAL.test(raw)
	)
		return { kind: "unsure" };
	const real = realTarget(resolve(cwd, raw));
	if (!real) return { kind: "unsure" };
	if (gitDirs.some((dir) => isInside(dir, real))) return { kind: "unsure" };
	if (!isInside(realRoot, real)) return { kind: "outside" };
	const rel = relative(realRoot, real);
	if (!rel) return { kind: "unsure" };
	// A folder on the way that holds `.git` is a nested repository or submodule: git reports it differently.
	const parts = rel.split(sep);
	for (let i = 1; i < parts.length; i++)
		if (existsSync(join(realRoot, ...parts.slice(0, i), ".git"))) return { kind: "unsure" };
	return { kind: "inside", path: parts.join("/") };
}

/**
 * The real path a write to `abs` changes: links followed; for a file not there yet, its nearest existing
 * folder's real path.
 */
function realTarget(abs: string): string | undefined {
	try {
		return realpathSync(abs);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
	}
	// Missing: a dangling link would be written through to somewhere else; a truly new file is created here.
	if (lstatSync(abs, { throwIfNoEntry: false })) return undefined;
	const parent = dirname(abs);
	if (parent === abs) return undefined;
	const realParent = realTarget(parent);
	return realParent === undefined ? undefined : join(realParent, basename(abs));
}

export function realRootOf(root: string): string {
	try {
		return realpathSync(root);
	} catch {
		return resolve(root);
	}
}
