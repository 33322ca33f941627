import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeGitRepo, writeFiles } from "../../../support/git.ts";
import { tempDir } from "../../../support/temp.ts";
import { toolsIn } from "../../../support/review-tools.ts";

function tree() {
	const root = tempDir();
	writeFiles(root, {
		"src/a.ts": "export const alpha = 1;\n// TODO: beta\nconst Alpha = 2;\n",
		"src/b.js": "alpha();\n",
		"docs/notes.md": "nothing here\nTODO write docs\n",
		"node_modules/dep/index.ts": "alpha in a dependency\n",
	});
	return root;
}

describe("grep", () => {
	it("prints path:line: text for each matching line", async () => {
		const grep = toolsIn(tree());
		expect(await grep("grep", { pattern: "alpha" })).toEqual({
			isError: false,
			text: "src/a.ts:1: export const alpha = 1;\nsrc/b.js:1: alpha();",
		});
		expect((await grep("grep", { pattern: "alpha", ignoreCase: true })).text).toBe(
			"src/a.ts:1: export const alpha = 1;\nsrc/a.ts:3: const Alpha = 2;\nsrc/b.js:1: alpha();",
		);
		expect((await grep("grep", { pattern: "TODO", glob: "*.md" })).text).toBe("docs/notes.md:2: TODO write docs");
		expect((await grep("grep", { pattern: "TODO", path: "src" })).text).toBe("src/a.ts:2: // TODO: beta");
		expect((await grep("grep", { pattern: "TODO", path: "docs/notes.md" })).text).toBe(
			"docs/notes.md:2: TODO write docs",
		);
		expect((await grep("grep", { pattern: "^const \\w+ = \\d;$", ignoreCase: "true" })).text).toBe(
			"src/a.ts:3: const Alpha = 2;",
		);
		expect((await grep("grep", { pattern: "gamma" })).text).toBe(
			"No matches for /gamma/ in 3 files under the repository root.",
		);
	});

	it("works in a git repository without reading .git", async () => {
		const root = makeGitRepo({ "a.txt": "main branch\n" });
		const r = await toolsIn(root)("grep", { pattern: "main" });
		expect(r.text).toBe("a.txt:1: main branch");
	});

	it("skips binary files and large files, and says which large ones it skipped", async () => {
		const root = tempDir();
		writeFileSync(join(root, "blob.bin"), Buffer.concat([Buffer.from("needle\n"), Buffer.from([0, 1, 2])]));
		writeFileSync(join(root, "big.log"), `${"needle\n".repeat(400_000)}`);
		writeFiles(root, { "small.txt": "needle\n" });
		const grep = toolsIn(root);
		const r = await grep("grep", { pattern: "needle" });
		expect(r.text).toBe('small.txt:1: needle\n[not searched, over 2.0 MiB: big.log; name one as "path" to search it]');
		expect((await grep("grep", { pattern: "needle", path: "blob.bin" })).text).toBe(
			"grep: blob.bin cannot be searched: it is a binary file.",
		);
		// Named explicitly, a file up to 10 MiB is searched.
		expect((await grep("grep", { pattern: "needle", path: "big.log" })).text).toMatch(/^big\.log:1: needle\n/);
	});

	it("cuts long lines around the match and caps the number of matches", async () => {
		const root = tempDir();
		writeFiles(root, {
			"min.js": `${"a".repeat(1000)}NEEDLE${"b".repeat(1000)}\n`,
			"many.txt": "hit\n".repeat(500),
		});
		const grep = toolsIn(root);
		const line = (await grep("grep", { pattern: "NEEDLE" })).text;
		expect(line).toContain("NEEDLE");
		expect(line.length).toBeLessThan(330);
		expect(line).toMatch(/^min\.js:1: …a+NEEDLEb+…$/);

		const many = (await grep("grep", { pattern: "hit" })).text.split("\n");
		expect(many).toHaveLength(201);
		expect(many[199]).toBe("many.txt:200: hit");
		expect(many[200]).toBe(
			'[truncated: showed 200 matches and there are more; narrow the search with "path", "glob" or a more specific pattern]',
		);
	});

	it("keeps the result under the output cap", async () => {
		const root = tempDir();
		writeFiles(root, { "wide.txt": `${"x".repeat(290)} hit\n`.repeat(150) });
		const r = await toolsIn(root)("grep", { pattern: "hit" });
		expect(r.text.length).toBeLessThanOrEqual(20_000);
		expect(r.text).toMatch(/\[truncated: showed \d+ matches and there are more;/);
	});

	it("explains an invalid regular expression and bad arguments", async () => {
		const grep = toolsIn(tree());
		const bad = await grep("grep", { pattern: "foo(" });
		expect(bad.isError).toBe(true);
		expect(bad.text).toMatch(
			/^grep: "foo\(" is not a valid JavaScript regular expression \(.*Unterminated group\); escape characters/,
		);
		expect((await grep("grep", {})).text).toMatch(
			/^grep: "pattern" is required\. Expected arguments \{ pattern: string, path\?: string, glob\?: string, ignoreCase\?: boolean \}\.$/,
		);
		expect((await grep("grep", { pattern: "a", ignoreCase: "yes" })).text).toMatch(
			/"ignoreCase" must be true or false, got the string "yes"/,
		);
		expect((await grep("grep", { pattern: "a", glob: "/etc/*" })).text).toMatch(
			/must be relative to the folder searched/,
		);
		expect((await grep("grep", { pattern: "a", path: "nowhere" })).text).toMatch(/nowhere does not exist/);
	});

	it("does not search outside the root, through symlinks or otherwise", async () => {
		const root = tree();
		const outside = tempDir();
		writeFiles(outside, { "secret.ts": "SECRET alpha\n", "sub/s.ts": "SECRET\n" });
		symlinkSync(join(outside, "secret.ts"), join(root, "src/link.ts"));
		symlinkSync(outside, join(root, "src/link-dir"));
		const grep = toolsIn(root);
		expect((await grep("grep", { pattern: "SECRET" })).text).toBe(
			"No matches for /SECRET/ in 3 files under the repository root.",
		);
		for (const path of ["..", "a/../../x", "/etc/passwd", "src/link.ts", "src/link-dir", "~/x"]) {
			const r = await grep("grep", { pattern: "SECRET", path });
			expect(r.isError, path).toBe(true);
			expect(r.text).not.toContain("SECRET alpha");
		}
	});

	it("gives up on a pattern that backtracks without end instead of freezing", async () => {
		const root = tempDir();
		writeFiles(root, { "a.txt": `${"a".repeat(40)}!\n` });
		const started = Date.now();
		const r = await toolsIn(root, { regexTimeoutMs: 500 })("grep", { pattern: "^(a+)+$" });
		expect(r.isError).toBe(true);
		expect(r.text).toMatch(/ran longer than 500 ms on one file \(a\.txt\); the pattern probably backtracks heavily/);
		expect(Date.now() - started).toBeLessThan(5000);
	});

	it("stops when aborted, even inside a slow match", async () => {
		const root = tempDir();
		writeFiles(root, { "a.txt": `${"a".repeat(40)}!\n` });
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 200);
		const started = Date.now();
		const r = await toolsIn(root, { regexTimeoutMs: 60_000 })("grep", { pattern: "^(a+)+$" }, controller.signal);
		expect(r).toEqual({ isError: true, text: "grep: cancelled before it finished." });
		expect(Date.now() - started).toBeLessThan(5000);
	});

	it("stops walking when aborted", async () => {
		const root = tempDir();
		writeFiles(root, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`d${i % 10}/f${i}.txt`, "x\n"])));
		const controller = new AbortController();
		const pending = toolsIn(root)("grep", { pattern: "x" }, controller.signal);
		controller.abort();
		expect(await pending).toEqual({ isError: true, text: "grep: cancelled before it finished." });
	});
});
