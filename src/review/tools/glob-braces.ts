// Brace expansion for globs: `a{b,c}d` → `abd`, `acd`. Nested groups work; a group that is
// never closed or has no comma is literal text. The caller gets null instead of a list that
// would pass `max`, so a pattern like `{a,b}{c,d}…` cannot blow up.

export function expandBraces(glob: string, max: number): string[] | null {
	const results: string[] = [];
	return expandInto(glob, 0, max, results) ? results : null;
}

/** Appends the expansions of `glob` (which has no group before `from`) to `out`; false past `max`. */
function expandInto(glob: string, from: number, max: number, out: string[]): boolean {
	const group = firstGroup(glob, from);
	if (!group) {
		out.push(glob);
		return out.length <= max;
	}
	const { open, close, commas } = group;
	const bounds = [open, ...commas, close];
	const before = glob.slice(0, open);
	const after = glob.slice(close + 1);
	for (let k = 0; k + 1 < bounds.length; k++) {
		// The text before `open` holds no group, so the variant is scanned again from `open`.
		const variant = before + glob.slice(bounds[k] + 1, bounds[k + 1]) + after;
		if (!expandInto(variant, open, max, out)) return false;
	}
	return true;
}

/** The first `{` at or after `from` that is closed and has a comma at its own depth. */
function firstGroup(glob: string, from: number): { open: number; close: number; commas: number[] } | null {
	for (let open = nextUnescaped(glob, "{", from); open >= 0; open = nextUnescaped(glob, "{", open + 1)) {
		let depth = 0;
		const commas: number[] = [];
		for (let i = open; i < glob.length; i++) {
			const c = glob[i];
			if (c === "\\") i++;
			else if (c === "{") depth++;
			else if (c === "}" && --depth === 0) {
				if (commas.length > 0) return { open, close: i, commas };
				break;
			} else if (c === "," && depth === 1) commas.push(i);
		}
	}
	return null;
}

function nextUnescaped(text: string, ch: string, from: number): number {
	for (let i = from; i < text.length; i++) {
		if (text[i] === "\\") i++;
		else if (text[i] === ch) return i;
	}
	return -1;
}
