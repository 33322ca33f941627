import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { confinePath } from "../../../../src/review/tools/confine.ts";
import { writeFiles } from "../../../support/git.ts";
import { tempDir } from "../../../support/temp.ts";

function setup() {
	const root = tempDir();
	const outside = tempDir();
	writeFiles(root, { "a.txt": "a\n", "sub/b.txt": "b\n", ".git/config": "[core]\n" });
	writeFiles(outside, { "secret.txt": "secret\n" });
	symlinkSync(join(outside, "secret.txt"), join(root, "link-file"));
	symlinkSync(outside, join(root, "link-dir"));
	symlinkSync(join(root, "sub"), join(root, "inner-link"));
	return { root, outside };
}

describe("confinePath", () => {
	it("resolves paths inside the root to real paths and keeps the relative name", () => {
		const { root } = setup();
		const a = confinePath(root, "sub/b.txt");
		expect(a).toMatchObject({ ok: true, rel: "sub/b.txt" });
		if (a.ok) expect(a.abs.endsWith(join("sub", "b.txt"))).toBe(true);
		expect(confinePath(root, "")).toMatchObject({ ok: true, rel: "" });
		expect(confinePath(root, ".")).toMatchObject({ ok: true, rel: "" });
		expect(confinePath(root, "./sub/../a.txt")).toMatchObject({ ok: true, rel: "a.txt" });
		expect(confinePath(root, join(root, "a.txt"))).toMatchObject({ ok: true, rel: "a.txt" });
		// A symlink that stays inside is followed.
		expect(confinePath(root, "inner-link/b.txt")).toMatchObject({ ok: true, rel: "inner-link/b.txt" });
		// A missing path is allowed (the caller reports it missing), as long as it stays inside.
		expect(confinePath(root, "sub/new/file.txt")).toMatchObject({ ok: true, rel: "sub/new/file.txt" });
	});

	it("refuses every way out of the root", () => {
		const { root, outside } = setup();
		const refused: Array<[string, RegExp]> = [
			["../x", /leaves the repository root/],
			["a/../../x", /leaves the repository root/],
			["sub/../../x", /leaves the repository root/],
			["/etc/passwd", /outside the repository/],
			[join(outside, "secret.txt"), /outside the repository/],
			["~/x", /~/],
			["~", /home folder/],
			["link-file", /symbolic link that points outside/],
			["link-dir", /symbolic link that points outside/],
			["link-dir/secret.txt", /symbolic link that points outside/],
			["link-dir/missing/deeper.txt", /symbolic link that points outside/],
			["a\0b", /NUL/],
		];
		for (const [input, message] of refused) {
			const r = confinePath(root, input);
			expect(r.ok, input).toBe(false);
			if (!r.ok) expect(r.error, input).toMatch(message);
		}
	});

	it("refuses .git contents, also through a symlink and in nested repositories", () => {
		const { root } = setup();
		mkdirSync(join(root, "vendor/lib/.git"), { recursive: true });
		writeFileSync(join(root, "vendor/lib/.git/config"), "");
		symlinkSync(join(root, ".git"), join(root, "git-link"));
		for (const input of [".git", ".git/config", ".GIT/config", "vendor/lib/.git/config", "git-link/config"]) {
			const r = confinePath(root, input);
			expect(r.ok, input).toBe(false);
			if (!r.ok) expect(r.error, input).toMatch(/\.git/);
		}
	});
});
