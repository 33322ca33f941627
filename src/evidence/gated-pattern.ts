// A regular expression with the words (lowercase) one of which every text it matches contains. A text without any
// of them is not matched against it at all. V8 compiles a pattern when it first runs; the claims check's patterns
// took several milliseconds to compile at each start's first settle, for sentences that most often hold none of
// their words. test/unit/evidence/gated-pattern.test.ts checks each pattern's words against generated sentences.
export interface GatedPattern {
	readonly pattern: RegExp;
	readonly words: readonly string[];
}

/** `words`: "|"-separated; each match of `pattern` (which has no g or y flag) contains one of them. */
export function gated(pattern: RegExp, words: string): GatedPattern {
	return { pattern, words: words.split("|") };
}

/** `pattern.test(text)`, skipped when `lower` (text.toLowerCase()) holds none of the words. */
export function matches(gate: GatedPattern, text: string, lower: string): boolean {
	for (const word of gate.words) if (lower.includes(word)) return gate.pattern.test(text);
	return false;
}
