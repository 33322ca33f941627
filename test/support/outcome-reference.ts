// What the loop detector's outcomeText is defined to return: its three rewrites applied always, in order
// (test/unit/loops/outcome-text.test.ts and the dev-equivalence bench compare the two).
/** The definition: the three rewrites, always, in the same order. */
export function outcomeReference(result: string, isError: boolean): string {
	const text = result
		.replace(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/g, "<time>")
		.replace(/\b\d\d:\d\d:\d\d(?:\.\d+)?\b/g, "<time>")
		.replace(/\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds)\b/g, "<duration>")
		.trim();
	const empty = text === "" || /^\(?no output\)?\.?$/i.test(text);
	return `${isError ? "E" : ""}${empty ? "<empty>" : text}`;
}
