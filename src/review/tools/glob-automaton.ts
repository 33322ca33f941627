// One brace-free glob alternative as a token list, matched by simulating the automaton with a
// set of active positions: O(path length × tokens), never backtracking. The reviewer model
// writes these patterns, so nothing here may take time exponential in them (a RegExp did).
//   *  any run without `/`      ?  one character but `/`      [abc] [a-z] [!abc] [^abc]  classes
//   ** as a whole segment: any folders (`a/**/b`), or anything at all when it ends the pattern
//   \x  the character x
// Characters are UTF-16 code units, as in a JavaScript RegExp without the `u` flag.

const SLASH = 47; // "/"

// Token kinds; plain numbers, so the hot loop compares small integers.
const CHAR = 0; // one given code unit
const ONE = 1; // `?`
const CLASS = 2; // `[…]`
const STAR = 3; // `*`: stays on itself for any code unit but `/`
const ANYTHING = 4; // trailing `**`: stays on itself for any code unit
const SKIP = 5; // start of a middle `**/`: consumes nothing, may jump past it

export type Token =
	| { kind: typeof CHAR; code: number }
	| { kind: typeof ONE | typeof STAR | typeof ANYTHING }
	| { kind: typeof CLASS; negate: boolean; ranges: number[] }
	| { kind: typeof SKIP; to: number };

export type CompiledAlternative = { ok: true; tokens: Token[] } | { ok: false; error: string };

/** Compiles one alternative (braces already expanded). Empty and `.` segments are dropped. */
export function compileAlternative(glob: string): CompiledAlternative {
	const segments = glob.split("/").filter((s) => s !== "" && s !== ".");
	const tokens: Token[] = [];
	for (let i = 0; i < segments.length; i++) {
		const last = i === segments.length - 1;
		if (segments[i] === "**") {
			if (last) tokens.push({ kind: ANYTHING });
			else {
				// `**/` = nothing, or any text ending in `/` (so: zero or more whole folders).
				tokens.push({ kind: SKIP, to: tokens.length + 3 }, { kind: ANYTHING }, { kind: CHAR, code: SLASH });
			}
			continue;
		}
		const error = compileSegment(segments[i], tokens);
		if (error) return { ok: false, error };
		if (!last) tokens.push({ kind: CHAR, code: SLASH });
	}
	return { ok: true, tokens };
}

function compileSegment(segment: string, tokens: Token[]): string | null {
	for (let i = 0; i < segment.length; i++) {
		if (segment[i] === "\\" && i + 1 < segment.length) tokens.push({ kind: CHAR, code: segment.charCodeAt(++i) });
		else if (segment[i] === "*") {
			while (segment[i + 1] === "*") i++;
			tokens.push({ kind: STAR });
		} else if (segment[i] === "?") tokens.push({ kind: ONE });
		else {
			const end = segment[i] === "[" ? classEnd(segment, i) : -1;
			if (end < 0) {
				tokens.push({ kind: CHAR, code: segment.charCodeAt(i) }); // an unclosed `[` is literal too
				continue;
			}
			const token = compileClass(segment.slice(i + 1, end));
			if (typeof token === "string") return token;
			tokens.push(token);
			i = end;
		}
	}
	return null;
}

/** Index of the `]` closing the class opened at `start`, or -1 (then `[` is literal). */
function classEnd(segment: string, start: number): number {
	let i = start + 1;
	if (segment[i] === "!" || segment[i] === "^") i++;
	if (segment[i] === "]") i++; // a `]` right at the start is a member
	for (; i < segment.length; i++) if (segment[i] === "]") return i;
	return -1;
}

/** Members are literal code units (no escapes); `x-y` is a range unless `-` is first or last. */
function compileClass(body: string): Token | string {
	const negate = body[0] === "!" || body[0] === "^";
	const rest = negate ? body.slice(1) : body;
	const ranges: number[] = [];
	for (let i = 0; i < rest.length; i++) {
		const lo = rest.charCodeAt(i);
		if (rest[i + 1] === "-" && i + 2 < rest.length) {
			const hi = rest.charCodeAt(i + 2);
			if (hi < lo)
				return (
					`the character range ${rest.slice(i, i + 3)} in [${body}] is out of ` +
					`order; write ` +
					`the lower character first`
				);
			ranges.push(lo, hi);
			i += 2;
		} else ranges.push(lo, lo);
	}
	return { kind: CLASS, negate, ranges };
}

/** True when `text` matches the whole token list. */
export function matchTokens(tokens: readonly Token[], text: string): boolean {
	const n = tokens.length;
	let active = new Uint8Array(n + 1);
	let next = new Uint8Array(n + 1);
	active[0] = 1;
	close(tokens, active);
	for (let at = 0; at < text.length; at++) {
		const c = text.charCodeAt(at);
		next.fill(0);
		let alive = false;
		for (let p = 0; p < n; p++) {
			if (active[p] === 0) continue;
			const target = step(tokens[p], c, p);
			if (target >= 0) {
				next[target] = 1;
				alive = true;
			}
		}
		if (!alive) return false;
		close(tokens, next);
		[active, next] = [next, active];
	}
	return active[n] === 1;
}

/** Where position `p` goes on code unit `c`, or -1 when it dies there. */
function step(token: Token, c: number, p: number): number {
	switch (token.kind) {
		case CHAR:
			return c === token.code ? p + 1 : -1;
		case ONE:
			return c !== SLASH ? p + 1 : -1;
		case CLASS:
			return inClass(token, c) ? p + 1 : -1;
		case STAR:
			return c !== SLASH ? p : -1;
		case ANYTHING:
			return p;
		case SKIP:
			return -1; // consumes nothing; its jumps were taken in close()
	}
}

/** Adds the positions reachable without consuming anything; every such jump goes forward. */
function close(tokens: readonly Token[], active: Uint8Array): void {
	for (let p = 0; p < tokens.length; p++) {
		if (active[p] === 0) continue;
		const token = tokens[p];
		if (token.kind === STAR || token.kind === ANYTHING) active[p + 1] = 1;
		else if (token.kind === SKIP) {
			active[p + 1] = 1;
			active[token.to] = 1;
		}
	}
}

function inClass(token: { negate: boolean; ranges: number[] }, c: number): boolean {
	let member = false;
	for (let i = 0; i < token.ranges.length && !member; i += 2) member = c >= token.ranges[i] && c <= token.ranges[i + 1];
	// A negated class never matches `/`: it stays within one path segment.
	return token.negate ? !member && c !== SLASH : member;
}
