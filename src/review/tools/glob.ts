// Glob patterns for find and grep. Our own matcher rather than path.matchesGlob: that one never
// matches dotfiles with `*`, and the reviewer needs `.github/…` and `.env.example` like any
// other file. No RegExp either: the reviewer model writes these patterns, and a backtracking
// regex let `*a*a*a…b` freeze Pi for minutes; see glob-automaton.ts for the linear matcher.
//   *  any characters but `/`      ?  one character but `/`      **  any number of folders
//   [abc] [a-z] [!abc]  classes    {a,b}  alternatives             \x  a literal x
// A pattern without `/` is matched against file names, so `*.ts` finds them at any depth.
import { compileAlternative, matchTokens, type Token } from "./glob-automaton.ts";
import { expandBraces } from "./glob-braces.ts";

export type GlobMatcher = { ok: true; matches(relPath: string): boolean } | { ok: false; error: string };

const MAX_ALTERNATIVES = 256;
// Matching costs (path length × pattern size), so the pattern's size is bounded too.
export const MAX_GLOB_CHARS = 1_000;
const MAX_EXPANDED_CHARS = 16_384;

export function compileGlob(pattern: string): GlobMatcher {
	let glob = pattern.trim();
	while (glob.startsWith("./")) glob = glob.slice(2);
	const shown = JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern);
	if (glob === "") return { ok: false, error: "the glob pattern is empty" };
	if (glob.length > MAX_GLOB_CHARS)
		return {
			ok: false,
			error:
				`the glob ${shown} is ${glob.length} characters long, over the limit of ${MAX_GLOB_CHARS}; ` +
				`use a shorter pattern`,
		};
	if (glob.startsWith("/") || glob.split("/").includes("..")) {
		return {
			ok: false,
			error:
				`the glob ${shown} must be relative to the folder searched (no leading / or ..); ` +
				`choose the folder with "path"`,
		};
	}
	const expanded = expandBraces(glob, MAX_ALTERNATIVES);
	if (!expanded)
		return {
			ok: false,
			error: `the glob ${shown} expands to more than ${MAX_ALTERNATIVES} alternatives; simplify its {…} groups`,
		};
	const alternatives = [...new Set(expanded)];
	if (alternatives.reduce((sum, a) => sum + a.length, 0) > MAX_EXPANDED_CHARS) {
		return {
			ok: false,
			error: `the glob ${shown} expands to more than ${MAX_EXPANDED_CHARS} characters in all; simplify its {…} groups`,
		};
	}
	const compiled: Token[][] = [];
	for (const alternative of alternatives) {
		const one = compileAlternative(alternative);
		if (!one.ok) return { ok: false, error: `the glob ${shown} is not valid: ${one.error}` };
		compiled.push(one.tokens);
	}
	const byName = !glob.includes("/");
	return {
		ok: true,
		matches(relPath) {
			const subject = byName ? relPath.slice(relPath.lastIndexOf("/") + 1) : relPath;
			return compiled.some((tokens) => matchTokens(tokens, subject));
		},
	};
}
