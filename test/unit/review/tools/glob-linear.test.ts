import { describe, expect, it } from "vitest";
import { compileGlob, MAX_GLOB_CHARS } from "../../../../src/review/tools/glob.ts";
import { writeFiles } from "../../../support/git.ts";
import { tempDir } from "../../../support/temp.ts";
import { referenceGlob } from "../../../support/glob-reference.ts";
import { toolsIn } from "../../../support/review-tools.ts";
import { seededRandom } from "../../../support/seeded-random.ts";

function matcher(pattern: string) {
	const g = compileGlob(pattern);
	if (!g.ok) throw new Error(g.error);
	return g.matches;
}

/** Milliseconds `fn` takes. */
function timed(fn: () => void): number {
	const started = performance.now();
	fn();
	return performance.now() - started;
}

describe("glob matching time is linear", () => {
	// Each of these took a backtracking RegExp minutes or more on the subject beside it.
	const name = "a".repeat(250);
	const deep = `${"a/".repeat(120)}a`;
	const cases: Array<[string, string]> = [
		["*a*a*a*a*a*a*a*a*a*a*a*a*b", name],
		["*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", name],
		["?*?*?*?*?*?*?*?*?*?*?*?*?*?*b", name],
		["*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*b", name],
		["*[!b]*[!b]*[!b]*[!b]*[!b]*[!b]*[!b]*[!b]*[!b]*[!b]*[!b]*[!b]*b", name],
		["*[abc]*[^b]*a*a*a*a*a*a*a*a*a*a*a*a*{b,c,d}", name],
		["**/**/**/**/**/**/**/**/**/**/**/**/b", deep],
		["**/*a*/**/*a*/**/*a*/**/*a*/**/*a*/**/*a*/**/b", deep],
		["a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b", `${deep}/c`],
		["**/a*a*a*a*a*a*a*a*/**/b", `${"aaaaaaaaaaaaaaaaaaaa/".repeat(40)}c`],
	];

	it.each(cases)("%s finishes at once on a long subject", (pattern, subject) => {
		const m = matcher(pattern);
		let result = true;
		const ms = timed(() => {
			result = m(subject);
		});
		expect(result).toBe(false);
		expect(ms).toBeLessThan(200);
	});

	it("still matches what those patterns describe", () => {
		expect(matcher("*a*a*a*a*a*a*a*a*a*a*a*a*b")(`${"a".repeat(250)}b`)).toBe(true);
		expect(matcher("**/**/**/**/**/**/**/**/**/**/**/**/b")(`${"a/".repeat(120)}b`)).toBe(true);
		expect(matcher("*[!b]*[!b]*b")("xyzb")).toBe(true);
	});

	it("keeps find responsive on a file with a long name", async () => {
		const root = tempDir();
		writeFiles(root, { [`d/${"a".repeat(200)}`]: "x\n", [`${"a".repeat(200)}b`]: "x\n" });
		const started = performance.now();
		const r = await toolsIn(root)("find", { pattern: "*a*a*a*a*a*a*a*a*a*a*a*a*b" });
		const ms = performance.now() - started;
		expect(r).toEqual({ isError: false, text: `${"a".repeat(200)}b` });
		expect(ms).toBeLessThan(1000);
	});

	it("bounds the size of a pattern, before and after brace expansion", () => {
		expect(compileGlob("a".repeat(MAX_GLOB_CHARS))).toMatchObject({ ok: true });
		expect(compileGlob("a".repeat(MAX_GLOB_CHARS + 1))).toMatchObject({
			ok: false,
			error: expect.stringMatching(/over the limit of 1000/),
		});
		// 256 alternatives of ~900 characters: allowed by count, refused by size.
		const wide = `{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}${"*".repeat(900)}`;
		expect(compileGlob(wide)).toMatchObject({
			ok: false,
			error: expect.stringMatching(/more than 16384 characters in all/),
		});
	});

	it("keeps an unmatched { inside a class as itself", () => {
		// The RegExp translation wrote it back as \{, so [{] also matched a backslash…
		expect(matcher("[{]")("{")).toBe(true);
		expect(matcher("[{]")("\\")).toBe(false);
		expect(matcher("x[]-{]")("x_")).toBe(true);
		// …and [!-0] was written [^/-0], a range from / to 0, so it refused "." but allowed "-".
		expect(matcher("[!-0]")("-")).toBe(false);
		expect(matcher("[!-0]")(".")).toBe(true);
	});

	it("says which class range is out of order instead of failing", () => {
		expect(compileGlob("[z-a].ts")).toMatchObject({
			ok: false,
			error: expect.stringMatching(/range z-a in \[z-a\] is out of order/),
		});
	});
});

describe("glob matching agrees with the RegExp translation it replaces", () => {
	const patternPieces = [
		"a",
		"a",
		"b",
		".",
		"/",
		"*",
		"*",
		"?",
		"**",
		"**/",
		"[",
		"]",
		"!",
		"^",
		"-",
		"{",
		"}",
		",",
		",",
		"\\",
		"./",
		"[a-b]",
		"[!a]",
		"{a,b}",
		"[+-0]",
		"\\{",
		"é",
		"😀",
	];
	const pathPieces = [
		"a",
		"a",
		"b",
		".",
		"/",
		"-",
		"]",
		"[",
		"*",
		"{",
		"!",
		"\\",
		",",
		"ab",
		"a/b",
		"+",
		"0",
		"é",
		"😀",
	];

	it("on random small patterns and paths", () => {
		const next = seededRandom(20240611);
		const pick = (pieces: string[]) => pieces[Math.floor(next() * pieces.length)];
		let compared = 0;
		let matched = 0;
		for (let round = 0; round < 4000; round++) {
			const pattern = Array.from({ length: 1 + Math.floor(next() * 8) }, () => pick(patternPieces)).join("");
			let reference: ((p: string) => boolean) | null;
			try {
				reference = referenceGlob(pattern);
			} catch {
				// The RegExp refused it (a class range out of order): we refuse it with a reason.
				expect(compileGlob(pattern).ok, pattern).toBe(false);
				continue;
			}
			const ours = compileGlob(pattern);
			expect(ours.ok, pattern).toBe(reference !== null);
			if (!ours.ok || !reference) continue;
			for (let k = 0; k < 12; k++) {
				const path = Array.from({ length: Math.floor(next() * 7) }, () => pick(pathPieces)).join("");
				const expected = reference(path);
				expect(ours.matches(path), `${JSON.stringify(pattern)} on ${JSON.stringify(path)}`).toBe(expected);
				compared++;
				if (expected) matched++;
			}
		}
		// Enough of both outcomes that the comparison means something.
		expect(compared).toBeGreaterThan(30_000);
		expect(matched).toBeGreaterThan(1_500);
	});
});
