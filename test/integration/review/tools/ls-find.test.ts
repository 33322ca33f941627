import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeGitRepo, writeFiles } from "../../../support/git.ts";
import { tempDir } from "../../../support/temp.ts";
import { toolsIn } from "../../../support/review-tools.ts";

/** A plain folder (no git) with a symlinked file and folder pointing outside. */
function plainTree() {
	const root = tempDir();
	const outside = tempDir();
	writeFiles(root, {
		"README.md": "# r\n",
		"src/a.ts": "a\n",
		"src/deep/b.ts": "b\n",
		"src/deep/c.test.ts": "c\n",
		".github/workflows/ci.yml": "on: push\n",
		".env.example": "X=1\n",
		"node_modules/dep/index.ts": "dep\n",
	});
	writeFiles(outside, { "secret.ts": "SECRET\n", "more/other.ts": "SECRET\n" });
	symlinkSync(join(outside, "secret.ts"), join(root, "link-file.ts"));
	symlinkSync(outside, join(root, "link-dir"));
	symlinkSync(join(root, "src/a.ts"), join(root, "inner.ts"));
	mkdirSync(join(root, "empty"));
	return { root, outside };
}

describe("ls", () => {
	it("lists a folder sorted, folders with a trailing /, links with their target", async () => {
		const { root } = plainTree();
		const ls = toolsIn(root);
		const r = await ls("ls", {});
		expect(r).toEqual({
			isError: false,
			text: [
				".env.example",
				".github/",
				"README.md",
				"empty/",
				"inner.ts -> src/a.ts",
				"link-dir -> (outside the repository or into .git; cannot be read)",
				"link-file.ts -> (outside the repository or into .git; cannot be read)",
				"node_modules/",
				"src/",
			].join("\n"),
		});
		expect((await ls("ls", { path: "src" })).text).toBe("a.ts\ndeep/");
		expect((await ls("ls", { path: "empty" })).text).toBe("(empty is empty)");
		expect((await ls("ls", { path: "src/a.ts" })).text).toMatch(/is a file, not a folder; use read/);
		expect((await ls("ls", { path: "missing" })).text).toMatch(/missing does not exist/);
	});

	it("hides .git and caps long listings", async () => {
		const root = makeGitRepo(
			Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`many/f${String(i).padStart(3, "0")}.txt`, "x"])),
		);
		const ls = toolsIn(root);
		expect((await ls("ls", {})).text).toBe("many/");
		const r = await ls("ls", { path: "many" });
		const lines = r.text.split("\n");
		expect(lines).toHaveLength(501);
		expect(lines[0]).toBe("f000.txt");
		expect(lines[500]).toBe(
			"[truncated: showed 500 of 600 entries; use find with a pattern, or ls a subfolder, to narrow it]",
		);
	});

	it("refuses paths outside the root and bad arguments", async () => {
		const { root } = plainTree();
		const ls = toolsIn(root);
		for (const path of ["..", "src/../..", "/etc", "link-dir", "~/", ".git"]) {
			const r = await ls("ls", { path });
			expect(r.isError, path).toBe(true);
			expect(r.text).not.toContain("secret.ts");
		}
		expect((await ls("ls", { path: 5 })).text).toMatch(
			/^ls: "path" must be a string, got number 5\. Expected arguments \{ path\?: string \}\.$/,
		);
	});
});

describe("find", () => {
	it("matches file names at any depth, dotfiles included, skipping node_modules", async () => {
		const { root } = plainTree();
		const find = toolsIn(root);
		expect((await find("find", { pattern: "*.ts" })).text).toBe(
			["inner.ts", "src/a.ts", "src/deep/b.ts", "src/deep/c.test.ts"].join("\n"),
		);
		expect((await find("find", { pattern: "*.yml" })).text).toBe(".github/workflows/ci.yml");
		expect((await find("find", { pattern: ".env*" })).text).toBe(".env.example");
		expect((await find("find", { pattern: "**/*.test.ts" })).text).toBe("src/deep/c.test.ts");
		expect((await find("find", { pattern: "*.ts", path: "src/deep" })).text).toBe("src/deep/b.ts\nsrc/deep/c.test.ts");
		// With a slash the pattern is matched below "path".
		expect((await find("find", { pattern: "deep/*.ts", path: "src" })).text).toBe("src/deep/b.ts\nsrc/deep/c.test.ts");
		expect((await find("find", { pattern: "*.{md,yml}" })).text).toBe(".github/workflows/ci.yml\nREADME.md");
		expect((await find("find", { pattern: "*.rs" })).text).toBe('No files match "*.rs" under the repository root.');
	});

	it("does not follow symlinks out of the root", async () => {
		const { root } = plainTree();
		const find = toolsIn(root);
		const all = await find("find", { pattern: "**" });
		expect(all.text).not.toMatch(/secret|other\.ts|link-/);
		expect((await find("find", { pattern: "*", path: "link-dir" })).text).toMatch(/symbolic link that points outside/);
		for (const path of ["..", "a/../../x", "/etc", "~"])
			expect((await find("find", { pattern: "*", path })).isError, path).toBe(true);
		expect((await find("find", { pattern: "../*" })).text).toMatch(/must be relative to the folder searched/);
	});

	it("caps the number of paths", async () => {
		const root = tempDir();
		writeFiles(root, Object.fromEntries(Array.from({ length: 700 }, (_, i) => [`d/f${i}.txt`, "x"])));
		const r = await toolsIn(root)("find", { pattern: "*.txt" });
		const lines = r.text.split("\n");
		expect(lines).toHaveLength(501);
		expect(lines[500]).toBe("[truncated: showed 500 paths and there are more; use a narrower pattern or path]");
	});

	it("reports a missing pattern or a file as path", async () => {
		const { root } = plainTree();
		const find = toolsIn(root);
		expect((await find("find", {})).text).toBe(
			'find: "pattern" is required. Expected arguments { pattern: string, path?: string }.',
		);
		expect((await find("find", { pattern: ["*.ts"] })).text).toMatch(/"pattern" must be a string, got an array/);
		expect((await find("find", { pattern: "*", path: "README.md" })).text).toMatch(
			/README\.md is a file; "path" must be a folder/,
		);
	});
});
