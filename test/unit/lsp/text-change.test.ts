// The one changed range sent to the language server instead of the whole text: applied the way
// typescript-language-server applies it to its copy (LSP lines, its text document's offsetAt) and the
// way tsserver applies the edit it forwards (its own line numbering, ScriptVersionCache), it must give
// exactly the new text, on random texts with \r\n, lone \r, surrogate pairs and tabs, and random edits.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { type Position, type RangeChange, rangeChange } from "../../../src/lsp/text-change.ts";
import { seededRandom } from "../../support/seeded-random.ts";

type ScriptVersionCache = {
	edit(pos: number, deleteLen: number, text: string): void;
	lineOffsetToPosition(line: number, offset: number): number;
	getSnapshot(): { getText(start: number, end: number): string; getLength(): number };
};
const ts = createRequire(import.meta.url)("typescript") as {
	server: { ScriptVersionCache: { fromString(text: string): ScriptVersionCache } };
};

/** typescript-language-server's copy: its text document's line offsets and offsetAt. */
function lspApply(text: string, change: RangeChange): string {
	const eol = (c: number) => c === 10 || c === 13;
	const lines = [0];
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (!eol(c)) continue;
		if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
		lines.push(i + 1);
	}
	const offsetAt = ({ line, character }: Position) => {
		if (line >= lines.length) return text.length;
		const start = lines[line];
		if (character <= 0) return start;
		let offset = Math.min(start + character, line + 1 < lines.length ? lines[line + 1] : text.length);
		while (offset > start && eol(text.charCodeAt(offset - 1))) offset--;
		return offset;
	};
	const { start, end } = change.range;
	return text.slice(0, offsetAt(start)) + change.text + text.slice(offsetAt(end));
}

/** tsserver's copy: the `change` command the server forwards (1-based line and offset) on its own line map. */
function tsserverApply(text: string, change: RangeChange): string {
	const cache = ts.server.ScriptVersionCache.fromString(text);
	const { start, end } = change.range;
	const from = cache.lineOffsetToPosition(start.line + 1, start.character + 1);
	const to = cache.lineOffsetToPosition(end.line + 1, end.character + 1);
	cache.edit(from, to - from, change.text);
	const snapshot = cache.getSnapshot();
	return snapshot.getText(0, snapshot.getLength());
}

const PIECES = ["a", "b", "x", " ", "\t", "\n", "\r", "\r\n", "😀", "é", "é"];

function randomText(random: () => number, max: number): string {
	let text = "";
	const n = Math.floor(random() * max);
	for (let i = 0; i < n; i++) text += PIECES[Math.floor(random() * PIECES.length)];
	return text;
}

describe("the changed range of a document", () => {
	it("gives the new text on the server's copy and on tsserver's, for random texts and edits", () => {
		const random = seededRandom(29);
		let ranged = 0;
		for (let round = 0; round < 3000; round++) {
			const before = randomText(random, 40);
			// An edit somewhere (a replacement, an insertion, a deletion, or none), sometimes two.
			let after = before;
			for (let k = 0; k < 1 + Math.floor(random() * 2); k++) {
				const at = Math.floor(random() * (after.length + 1));
				const cut = Math.floor(random() * Math.min(6, after.length - at + 1));
				after = after.slice(0, at) + randomText(random, 4) + after.slice(at + cut);
			}
			const change = rangeChange(before, after);
			if (!change) throw new Error(`no range for ${JSON.stringify(before)}`);
			ranged++;
			expect(lspApply(before, change), JSON.stringify({ before, after, change })).toBe(after);
			expect(tsserverApply(before, change), JSON.stringify({ before, after, change })).toBe(after);
		}
		expect(ranged).toBe(3000);
	});

	it("is the smallest range: a one-character edit on one line sends that line's change only", () => {
		expect(rangeChange("const a = 1;\r\nconst b = 2;\r\n", "const a = 1;\r\nconst b = 3;\r\n")).toEqual({
			range: { start: { line: 1, character: 10 }, end: { line: 1, character: 11 } },
			text: "3",
		});
		// Never between \r and \n, nor inside a surrogate pair.
		expect(rangeChange("a\r\nb", "a\rb")).toEqual({
			range: { start: { line: 0, character: 1 }, end: { line: 1, character: 0 } },
			text: "\r",
		});
		expect(rangeChange("😀", "😃")).toEqual({
			range: { start: { line: 0, character: 0 }, end: { line: 0, character: 2 } },
			text: "😃",
		});
	});

	it("sends the whole text when tsserver would number the lines differently (U+2028, U+2029)", () => {
		expect(rangeChange("const s = 'a\u2028b';\nlet x = 1;\n", "const s = 'a\u2028b';\nlet x = 2;\n")).toBeUndefined();
		expect(rangeChange("a\u2029b", "a\u2029c")).toBeUndefined();
		// Its tsserver copy shows why: the same LSP position is elsewhere there.
		const text = "a\u2028b\nc";
		expect(
			tsserverApply(text, { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }, text: "X" }),
		).not.toBe(
			lspApply(text, { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }, text: "X" }),
		);
	});
});
