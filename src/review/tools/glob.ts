// Glob patterns for find and grep, compiled to regular expressions. Our own matcher rather
// than path.matchesGlob: that one never matches dotfiles with `*`, and the reviewer needs
// `.github/…` and `.env.example` like any other file.
//   *  any characters but `/`      ?  one character but `/`      **  any number of folders
//   [abc] [a-z] [!abc]  classes    {a,b}  alternatives             \x  a literal x
// A pattern without `/` is matched against file names, so `*.ts` finds them at any depth.

export type GlobMatcher = { ok: true; matches(relPath: string): boolean } | { ok: false; error: string };

const MAX_ALTERNATIVES = 256;

export function compileGlob(pattern: string): GlobMatcher {
	let glob = pattern.trim();
	while (glob.startsWith("./")) glob = glob.slice(2);
	if (glob === "") return { ok: false, error: "the glob pattern is empty" };
	if (glob.startsWith("/") || glob.split("/").includes("..")) {
		return { ok: false, error: `the glob ${JSON.stringify(pattern)} must be relative to the folder searched (no leading / or ..); choose the folder with "path"` };
	}
	const expanded = expandBraces(glob);
	if (!expanded) return { ok: false, error: `the glob ${JSON.stringify(pattern)} expands to more than ${MAX_ALTERNATIVES} alternatives; simplify its {…} groups` };
	const regex = new RegExp(`^(?:${expanded.map(compileOne).join("|")})$`);
	const byName = !glob.includes("/");
	return {
		ok: true,
		matches: (relPath) => regex.test(byName ? relPath.slice(relPath.lastIndexOf("/") + 1) : relPath),
	};
}

function compileOne(glob: string): string {
	const segments = glob.split("/").filter((s) => s !== "" && s !== ".");
	let source = "";
	segments.forEach((segment, i) => {
		const last = i === segments.length - 1;
		if (segment === "**") {
			source += last ? ".*" : "(?:[^/]*/)*";
			return;
		}
		source += compileSegment(segment) + (last ? "" : "/");
	});
	return source;
}

function compileSegment(segment: string): string {
	let out = "";
	for (let i = 0; i < segment.length; i++) {
		const c = segment[i];
		if (c === "\\" && i + 1 < segment.length) out += escapeChar(segment[++i]);
		else if (c === "*") {
			while (segment[i + 1] === "*") i++;
			out += "[^/]*";
		} else if (c === "?") out += "[^/]";
		else if (c === "[") {
			const end = classEnd(segment, i);
			if (end < 0) out += "\\[";
			else {
				out += compileClass(segment.slice(i + 1, end));
				i = end;
			}
		} else out += escapeChar(c);
	}
	return out;
}

/** Index of the `]` closing the class opened at `start`, or -1 (then `[` is literal). */
function classEnd(segment: string, start: number): number {
	let i = start + 1;
	if (segment[i] === "!" || segment[i] === "^") i++;
	if (segment[i] === "]") i++;
	for (; i < segment.length; i++) if (segment[i] === "]") return i;
	return -1;
}

function compileClass(body: string): string {
	let negate = false;
	let rest = body;
	if (rest.startsWith("!") || rest.startsWith("^")) {
		negate = true;
		rest = rest.slice(1);
	}
	// Inside a class only `\`, `]` and `^` need escaping; `-` keeps its range meaning.
	const inner = rest.replace(/[\\\]^]/g, (ch) => `\\${ch}`);
	return negate ? `[^/${inner}]` : `[${inner}]`;
}

function escapeChar(c: string): string {
	return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** `a{b,c}d` → [`abd`, `acd`]; nested groups work; null when there would be too many. */
function expandBraces(glob: string): string[] | null {
	const open = findUnescaped(glob, "{", 0);
	if (open < 0) return [glob];
	let depth = 0;
	const commas: number[] = [];
	let close = -1;
	for (let i = open; i < glob.length && close < 0; i++) {
		const c = glob[i];
		if (c === "\\") i++;
		else if (c === "{") depth++;
		else if (c === "}" && --depth === 0) close = i;
		else if (c === "," && depth === 1) commas.push(i);
	}
	// An unclosed or comma-less group is literal text.
	if (close < 0 || commas.length === 0) {
		const tail = expandBraces(glob.slice(open + 1));
		return tail && tail.map((t) => `${glob.slice(0, open)}\\{${t}`);
	}
	const bounds = [open, ...commas, close];
	const results: string[] = [];
	for (let k = 0; k + 1 < bounds.length; k++) {
		const variant = glob.slice(0, open) + glob.slice(bounds[k] + 1, bounds[k + 1]) + glob.slice(close + 1);
		const expanded = expandBraces(variant);
		if (!expanded) return null;
		results.push(...expanded);
		if (results.length > MAX_ALTERNATIVES) return null;
	}
	return results;
}

function findUnescaped(text: string, ch: string, from: number): number {
	for (let i = from; i < text.length; i++) {
		if (text[i] === "\\") i++;
		else if (text[i] === ch) return i;
	}
	return -1;
}
