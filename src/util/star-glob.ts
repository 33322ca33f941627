// Globs where only `*` (any run of characters, `/` included) and `?` (one character) are
// special: for names that are not paths, such as model references (`provider/id:thinking`) and
// tool names. Anchored and case-sensitive. Matching is minimatch's (its matcher does not
// recurse, so a pattern like `*a*a*a…b` costs time linear in its size, not exponential);
// everything minimatch would otherwise read as syntax (classes, braces, extglobs, `!`, `#`,
// `\`) is escaped to stand for itself, and `/` is swapped for a character minimatch does
// not treat as a separator, so `*` crosses it.
import { escape as escapeGlob, Minimatch, type MinimatchOptions } from "minimatch";

/** Longest pattern accepted: matching costs (pattern size × name size), so both are kept small. */
export const MAX_STAR_GLOB_CHARS = 256;
/** Names longer than this never match (no real model reference or tool name is this long). */
export const MAX_STAR_GLOB_SUBJECT = 1_024;

const OPTIONS: MinimatchOptions = {
	nobrace: true,
	noext: true,
	nonegate: true,
	nocomment: true,
	noglobstar: true,
	dot: true,
	platform: "linux",
	optimizationLevel: 0,
};
// A private-use code point: never in a model id, and no syntax to minimatch.
const SLASH_STANDIN = "\uE000";

export type StarGlob = { ok: true; pattern: string; matches(name: string): boolean } | { ok: false; error: string };

export function compileStarGlob(pattern: string): StarGlob {
	if (typeof pattern !== "string" || pattern === "") return { ok: false, error: "a pattern may not be empty" };
	if (pattern.length > MAX_STAR_GLOB_CHARS)
		return {
			ok: false,
			error:
				`the pattern ${JSON.stringify(`${pattern.slice(0, 40)}…`)} is ${pattern.length} ` +
				`characters long; at most ${MAX_STAR_GLOB_CHARS} are allowed`,
		};
	if (pattern.includes(SLASH_STANDIN))
		return {
			ok: false,
			error: `the pattern ${JSON.stringify(pattern)} holds the character U+E000, which is not allowed`,
		};
	// Runs of `*` mean what one does; keeping one keeps the matcher's work small.
	const glob = pattern
		.replace(/\*+/g, "*")
		.split(/([*?])/)
		.map((part) => (part === "*" || part === "?" ? part : escapeGlob(standIn(part))))
		.join("");
	const compiled = new Minimatch(glob, OPTIONS);
	return {
		ok: true,
		pattern,
		matches: (name) =>
			typeof name === "string" &&
			name !== "" &&
			name.length <= MAX_STAR_GLOB_SUBJECT &&
			!name.includes(SLASH_STANDIN) &&
			compiled.match(standIn(name)),
	};
}

function standIn(text: string): string {
	return text.split("/").join(SLASH_STANDIN);
}
