// The glob semantics as they were defined before the linear matcher: a translation to a
// RegExp. It backtracks exponentially on patterns like `*a*a*a…b`, so it serves only as the
// reference for small random inputs, where it is fast and obviously right. Two bugs of the old
// code are fixed here, as in the matcher: an unmatched `{` was written back as `\{`, which inside
// a class added a backslash member (`[{]` matched `\`); and a negated class was written `[^/…]`,
// so a leading `-` made a range from `/` (`[!-0]` excluded `/`..`0`, not `-` and `0`).

const MAX_ALTERNATIVES = 256;

/** null when the pattern is refused; throws where the old code threw (a range out of order). */
export function referenceGlob(pattern: string): ((relPath: string) => boolean) | null {
	let glob = pattern.trim();
	while (glob.startsWith("./")) glob = glob.slice(2);
	if (glob === "" || glob.startsWith("/") || glob.split("/").includes("..")) return null;
	const expanded = expandBraces(glob);
	if (!expanded) return null;
	const regex = new RegExp(`^(?:${expanded.map(compileOne).join("|")})$`);
	const byName = !glob.includes("/");
	return (relPath) => regex.test(byName ? relPath.slice(relPath.lastIndexOf("/") + 1) : relPath);
}

function compileOne(glob: string): string {
	const segments = glob.split("/").filter((s) => s !== "" && s !== ".");
	return segments
		.map((segment, i) => {
			const last = i === segments.length - 1;
			if (segment === "**") return last ? ".*" : "(?:[^/]*/)*";
			return compileSegment(segment) + (last ? "" : "/");
		})
		.join("");
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
				let body = segment.slice(i + 1, end);
				const negate = body.startsWith("!") || body.startsWith("^");
				if (negate) body = body.slice(1);
				const inner = body.replace(/[\\\]^]/g, (ch) => `\\${ch}`);
				out += negate ? `(?!/)[^${inner}]` : `[${inner}]`;
				i = end;
			}
		} else out += escapeChar(c);
	}
	return out;
}

function classEnd(segment: string, start: number): number {
	let i = start + 1;
	if (segment[i] === "!" || segment[i] === "^") i++;
	if (segment[i] === "]") i++;
	for (; i < segment.length; i++) if (segment[i] === "]") return i;
	return -1;
}

function escapeChar(c: string): string {
	return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

function expandBraces(glob: string): string[] | null {
	const open = findUnescaped(glob, "{");
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
	if (close < 0 || commas.length === 0) {
		const tail = expandBraces(glob.slice(open + 1));
		return tail ? tail.map((t) => `${glob.slice(0, open)}{${t}`) : null;
	}
	const bounds = [open, ...commas, close];
	const results: string[] = [];
	for (let k = 0; k + 1 < bounds.length; k++) {
		const expanded = expandBraces(
			glob.slice(0, open) + glob.slice(bounds[k] + 1, bounds[k + 1]) + glob.slice(close + 1),
		);
		if (!expanded) return null;
		results.push(...expanded);
		if (results.length > MAX_ALTERNATIVES) return null;
	}
	return results;
}

function findUnescaped(text: string, ch: string): number {
	for (let i = 0; i < text.length; i++) {
		if (text[i] === "\\") i++;
		else if (text[i] === ch) return i;
	}
	return -1;
}
