import { readFileSync, rmSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createGitRunner } from "../../../../src/git/runner.ts";
import { createReviewerReadTools } from "../../../../src/review/tools/reviewer-tools.ts";
import { git, makeGitRepo, writeFiles } from "../../../support/git.ts";
import { tempDir } from "../../../support/temp.ts";
import { toolsIn } from "../../../support/review-tools.ts";

/** A repository with a session-start commit, then: an edit, a later commit, an untracked file. */
function session() {
	const root = makeGitRepo({ "a.txt": "one\n", "keep.txt": "keep\n", "src/x.ts": "export const x = 1;\n" });
	const baseline = git(root, "rev-parse", "HEAD").trim();
	writeFiles(root, { "a.txt": "one\ntwo\n" });
	writeFiles(root, { "b.txt": "committed later\n" });
	git(root, "add", "b.txt");
	git(root, "commit", "-q", "-m", "later");
	writeFiles(root, { "c.txt": "untracked\n", "src/new.ts": "new\n", "ignored.log": "x\n", ".gitignore": "*.log\n" });
	return { root, baseline };
}

describe("watchdog_diff", () => {
	it("shows edits, later commits and untracked files since the baseline", async () => {
		const { root, baseline } = session();
		const r = await toolsIn(root, { baseline })("watchdog_diff", {});
		expect(r.isError).toBe(false);
		expect(r.text.split("\n")[0]).toBe(
			`Changes since the session started (commit ${baseline.slice(0, 12)}), working tree included:`,
		);
		expect(r.text).toContain("diff --git a/a.txt b/a.txt");
		expect(r.text).toContain("+two");
		expect(r.text).toContain("diff --git a/b.txt b/b.txt");
		expect(r.text).toContain("+committed later");
		expect(r.text).not.toContain("keep.txt");
		expect(r.text).toContain(
			"Untracked files (new, not in the diff above; use read to see them):\n.gitignore\nc.txt\nsrc/new.ts",
		);
		expect(r.text).not.toContain("ignored.log");
		expect(r.text).not.toMatch(/\x1b\[/); // no colour codes
	});

	it("limits the diff and the untracked list to a path", async () => {
		const { root, baseline } = session();
		writeFiles(root, { "src/x.ts": "export const x = 2;\n" });
		const diff = toolsIn(root, { baseline });
		const r = await diff("watchdog_diff", { path: "src" });
		expect(r.text).toContain("diff --git a/src/x.ts b/src/x.ts");
		expect(r.text).not.toContain("a.txt");
		expect(r.text).toMatch(
			/Untracked files in src \(new, not in the diff above; use read to see them\):\nsrc\/new\.ts$/,
		);
		expect((await diff("watchdog_diff", { path: "keep.txt" })).text).toBe(
			`No changes in keep.txt since the session started (commit ${baseline.slice(0, 12)}).`,
		);
		// A file deleted since the baseline can still be named.
		rmSync(join(root, "keep.txt"));
		expect((await diff("watchdog_diff", { path: "keep.txt" })).text).toContain("deleted file mode");
	});

	it("summarises with stat: true", async () => {
		const { root, baseline } = session();
		const r = await toolsIn(root, { baseline })("watchdog_diff", { stat: true });
		expect(r.text).toMatch(/ a\.txt \| 1 \+\n b\.txt \| 1 \+\n 2 files changed, 2 insertions\(\+\)/);
		expect(r.text).not.toContain("diff --git");
		expect(r.text).toContain("Untracked files");
	});

	it("leaves the index alone, even when files are only touched", async () => {
		const { root, baseline } = session();
		const later = new Date(Date.now() + 5000);
		utimesSync(join(root, "keep.txt"), later, later);
		const index = readFileSync(join(root, ".git/index"));
		const r = await toolsIn(root, { baseline })("watchdog_diff", {});
		expect(r.text).not.toContain("keep.txt");
		expect(readFileSync(join(root, ".git/index")).equals(index)).toBe(true);
	});

	it("shows a renamed file as a rename", async () => {
		const { root, baseline } = session();
		git(root, "mv", "src/x.ts", "src/y.ts");
		const r = await toolsIn(root, { baseline })("watchdog_diff", { path: "src" });
		expect(r.text).toContain("rename from src/x.ts\nrename to src/y.ts");
	});

	it("says so when nothing changed", async () => {
		const root = makeGitRepo();
		const baseline = git(root, "rev-parse", "HEAD").trim();
		expect(await toolsIn(root, { baseline })("watchdog_diff", {})).toEqual({
			isError: false,
			text: `No changes since the session started (commit ${baseline.slice(0, 12)}).`,
		});
	});

	it("truncates a huge diff and points to stat and path", async () => {
		const { root, baseline } = session();
		writeFiles(root, { "keep.txt": Array.from({ length: 3000 }, (_, i) => `changed line ${i}`).join("\n") });
		const r = await toolsIn(root, { baseline })("watchdog_diff", {});
		expect(r.text.length).toBeLessThanOrEqual(20_000);
		expect(r.text).toMatch(
			/\[truncated: showed \d+ of \d+ characters of the diff; call with "stat": true to list the changed files, then with "path" for one file or folder\]/,
		);
		// The untracked files survive the cut.
		expect(r.text).toMatch(/Untracked files .*\n\.gitignore\nc\.txt\nsrc\/new\.ts$/);
	});

	it("refuses paths outside the root and bad arguments", async () => {
		const { root, baseline } = session();
		const diff = toolsIn(root, { baseline });
		for (const path of ["../x", "a/../../x", "/etc/passwd", "~/x", ".git/config"]) {
			expect((await diff("watchdog_diff", { path })).isError, path).toBe(true);
		}
		expect((await diff("watchdog_diff", { stat: "maybe" })).text).toMatch(/"stat" must be true or false/);
		expect((await diff("watchdog_diff", { path: 5 })).text).toMatch(/"path" must be a string/);
		// Pathspec magic is taken literally, so `:/` cannot widen the scope.
		expect((await diff("watchdog_diff", { path: ":/" })).text).toMatch(/^No changes in : since/);
	});

	it("shows nothing from outside the root when the root is a subfolder of the repository", async () => {
		const repo = makeGitRepo({ "outer.txt": "outer\n", "sub/in.txt": "in\n" });
		const baseline = git(repo, "rev-parse", "HEAD").trim();
		writeFiles(repo, { "outer.txt": "changed\n", "outer-new.txt": "new\n", "sub/in.txt": "changed\n" });
		const diff = toolsIn(join(repo, "sub"), { baseline });
		const r = await diff("watchdog_diff", {});
		expect(r.text).toContain("diff --git a/in.txt b/in.txt");
		expect(r.text).not.toContain("outer");
		expect((await diff("watchdog_diff", { path: ":(top)outer.txt" })).text).toMatch(
			/^No changes in :\(top\)outer\.txt since/,
		);
	});

	it("is offered only with a commit id as baseline", () => {
		const root = makeGitRepo();
		const baseline = git(root, "rev-parse", "HEAD").trim();
		const names = (b: string | null | undefined) => createReviewerReadTools({ root, baseline: b }).map((t) => t.name);
		expect(names(baseline)).toEqual(["read", "ls", "find", "grep", "watchdog_diff"]);
		expect(names(null)).toEqual(["read", "ls", "find", "grep"]);
		expect(names(undefined)).toEqual(["read", "ls", "find", "grep"]);
		expect(names("--output=/tmp/x")).not.toContain("watchdog_diff");
	});

	it("reports git's failure for an unknown baseline, and uses the runner it is given", async () => {
		const root = makeGitRepo();
		const runner = createGitRunner(root);
		const r = await toolsIn(root, { baseline: "0123456789abcdef0123456789abcdef01234567", git: runner })(
			"watchdog_diff",
			{},
		);
		expect(r.isError).toBe(true);
		expect(r.text).toMatch(/^watchdog_diff: git diff against the session-start commit 0123456789ab failed: /);
		// The diff, and the one listing of the repository's own drivers made before a folder's first diff.
		expect(runner.processes).toBe(2);
	});

	it("leaves read, ls, find and grep working in a folder that is not a repository", async () => {
		const root = tempDir();
		writeFiles(root, { "a.txt": "plain\n" });
		const tools = toolsIn(root);
		expect((await tools("read", { path: "a.txt" })).text).toBe("1\tplain");
		expect((await tools("ls", {})).text).toBe("a.txt");
		expect((await tools("find", { pattern: "*.txt" })).text).toBe("a.txt");
		expect((await tools("grep", { pattern: "pla" })).text).toBe("a.txt:1: plain");
	});
});
