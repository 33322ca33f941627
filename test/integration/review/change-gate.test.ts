import { execFileSync } from "node:child_process";
import { rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ChangeGate } from "../../../src/review/change-gate.ts";
import { git, makeGitRepo, writeFiles } from "../../support/git.ts";
import { tempDir } from "../../support/temp.ts";

const ignore = (p: string) => /^(tmp|\.pi-subagents)\//.test(p) || /(^|\/)node_modules\//.test(p);

/** One run: the tool hooks around a file-system action, then the verdict. */
async function run(gate: ChangeGate, tool: string, act: () => void, input: unknown = {}) {
	await gate.beforeTool(tool);
	act();
	gate.afterTool(tool, input, false);
	return gate.finish();
}

describe("the change gate", () => {
	it("spends no git process on a run of read-only tools", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		for (const tool of ["read", "grep", "find", "ls"]) {
			await gate.beforeTool(tool);
			gate.afterTool(tool, { path: "a.txt" }, false);
		}
		expect(await gate.finish()).toEqual({ changed: false, paths: [], via: "none" });
		expect(gate.git?.processes).toBe(0);
	});

	it("reports what a run wrote, coalescing several edits into the final state", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "src/b.ts": "b\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, "bash", () => {
			writeFiles(repo, { "a.txt": "a1\n" });
			writeFiles(repo, { "a.txt": "a2\n", "src/new file.ts": "n\n" });
		});
		expect(verdict).toMatchObject({ changed: true, via: "git", paths: ["a.txt", "src/new file.ts"] });
	});

	it("never opens a FIFO the run left where a tracked file was", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "b.txt": "b\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const started = Date.now();
		const verdict = await run(gate, "bash", () => {
			rmSync(join(repo, "a.txt"));
			execFileSync("mkfifo", [join(repo, "a.txt")]);
		});
		expect(Date.now() - started).toBeLessThan(5000);
		expect(verdict).toMatchObject({ changed: true, paths: ["a.txt"] });
	});

	it("sees no change when the run reverted what it changed", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		writeFiles(repo, { "dirty.txt": "user work\n" }); // the user's uncommitted file
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, "edit", () => {
			writeFiles(repo, { "a.txt": "changed\n", "dirty.txt": "agent rewrote\n" });
			writeFiles(repo, { "a.txt": "a\n", "dirty.txt": "user work\n" });
		});
		expect(verdict).toMatchObject({ changed: false, paths: [] });
	});

	it("ignores the artifact folder, tmp/ and node_modules/", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, "bash", () =>
			writeFiles(repo, {
				"tmp/x.log": "x",
				"node_modules/p/index.js": "x",
				"pkg/node_modules/q.js": "x",
				".pi-subagents/run.json": "{}",
			}),
		);
		expect(verdict).toMatchObject({ changed: false, paths: [] });
	});

	it("counts a commit made during the run", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, "bash", () => {
			writeFiles(repo, { "c.txt": "c\n" });
			git(repo, "add", "c.txt");
			git(repo, "commit", "-qm", "c");
		});
		expect(verdict).toMatchObject({ changed: true, paths: ["c.txt"] });
		expect(verdict.head).toBe(git(repo, "rev-parse", "HEAD").trim());
	});

	it("takes the start of a later run from the previous end, with no git process", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		await run(gate, "write", () => writeFiles(repo, { "a.txt": "a1\n" }));
		const before = gate.git?.processes ?? 0;
		await gate.beforeTool("write");
		expect(gate.git?.processes).toBe(before); // start: stats only
		writeFiles(repo, { "a.txt": "a2\n" });
		gate.afterTool("write", { path: "a.txt" }, false);
		expect(await gate.finish()).toMatchObject({ changed: true, paths: ["a.txt"] });
		expect(gate.git?.processes).toBe(before + 1); // end: one git status
	});

	it("does not blame a run for what the user changed before it started", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "u.txt": "u\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		await run(gate, "write", () => writeFiles(repo, { "a.txt": "a1\n" }));
		// Between runs the user edits u.txt (an older mtime) and deletes nothing.
		writeFileSync(join(repo, "u.txt"), "user edit\n");
		const past = new Date(Date.now() - 60_000);
		utimesSync(join(repo, "u.txt"), past, past);
		const verdict = await run(gate, "write", () => writeFiles(repo, { "b.txt": "b\n" }));
		expect(verdict.paths).toEqual(["b.txt"]);
	});

	it("counts a deletion and a restore of the user's dirty file", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "gone.txt": "g\n" });
		writeFiles(repo, { "a.txt": "user work\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, "bash", () => {
			rmSync(join(repo, "gone.txt"));
			git(repo, "checkout", "--", "a.txt");
		});
		expect(verdict.paths).toEqual(["a.txt", "gone.txt"]);
	});

	it("outside git, uses successful edits and writes as the evidence", async () => {
		const dir = tempDir();
		const gate = new ChangeGate({ cwd: dir, ignore });
		expect(gate.repo).toBeUndefined();
		await gate.beforeTool("write");
		writeFileSync(join(dir, "x.txt"), "x");
		gate.afterTool("write", { path: "x.txt" }, false);
		await gate.beforeTool("edit");
		gate.afterTool("edit", { path: "y.txt" }, true); // failed edit: no evidence
		await gate.beforeTool("bash");
		gate.afterTool("bash", { command: "touch z" }, false);
		expect(await gate.finish()).toEqual({ changed: true, paths: ["x.txt"], via: "tools" });
		expect(await gate.finish()).toEqual({ changed: false, paths: [], via: "none" });
	});
});
