// What the language server is told of a document's text. A new text as the one range that changed, for
// textDocument/didChange: the server hands it to tsserver as an edit, and tsserver's incremental parser then
// reuses every node outside it, where a whole-text replacement makes it visit and parse the whole file again
// (about a quarter of a warm re-check's CPU). And a text's import lines, which say whether importers may change.

export interface Position {
	line: number;
	character: number;
}

export interface RangeChange {
	range: { start: Position; end: Position };
	text: string;
}

/**
 * The range of `before` that `after` replaced, with its new text; undefined when the whole text must be sent:
 * when `before` holds a character tsserver counts as a line break and LSP does not (U+2028, U+2029), the two
 * would number the lines differently. LSP lines end at \r\n, \r or \n; positions count UTF-16 code units; a
 * range never ends inside a \r\n or a surrogate pair.
 */
export function rangeChange(before: string, after: string): RangeChange | undefined {
	if (/[\u2028\u2029]/.test(before)) return undefined;
	const most = Math.min(before.length, after.length);
	let start = 0;
	while (start < most && before.charCodeAt(start) === after.charCodeAt(start)) start++;
	let tail = 0;
	while (
		tail < most - start &&
		before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)
	)
		tail++;
	if (start > 0 && splits(before, start)) start--;
	let end = before.length - tail;
	if (end < before.length && end > start && splits(before, end)) {
		tail--;
		end++;
	}
	return {
		range: { start: positionAt(before, start), end: positionAt(before, end) },
		text: after.slice(start, after.length - tail),
	};
}

/** Whether a position between index-1 and index falls inside a \r\n or a surrogate pair. */
function splits(text: string, index: number): boolean {
	const prev = text.charCodeAt(index - 1);
	const next = text.charCodeAt(index);
	return (prev === 13 && next === 10) || (prev >= 0xd800 && prev <= 0xdbff && next >= 0xdc00 && next <= 0xdfff);
}

/** The LSP position of an index: lines end at \r\n, \r or \n. */
export function positionAt(text: string, index: number): Position {
	let line = 0;
	let lineStart = 0;
	for (let i = 0; i < index; i++) {
		const c = text.charCodeAt(i);
		// A \r followed by \n ends its line at the \n.
		if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
			line++;
			lineStart = i + 1;
		}
	}
	return { line, character: index - lineStart };
}

const IMPORT_SPECIFIER =
	/\bfrom\s*["'][^"'\n]*["']|\b(?:import|require)\s*\(?\s*["'][^"'\n]*["']|^\/\/\/\s*<reference\b[^>\n]*>/gm;

/**
 * What a file's text says about which files it imports: the module names of its imports and
 * export-froms (also spread over lines), dynamic imports, requires and reference directives. A
 * change anywhere else in the file leaves every file's importers as they were.
 */
export function importLines(text: string): string {
	return (text.match(IMPORT_SPECIFIER) ?? []).join("\n");
}
