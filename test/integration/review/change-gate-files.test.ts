// Runs whose only mutating calls were edits and writes: decided by hashing the touched files,
// with no git process (counted by a `git` shim first on PATH, which sees every spawn).
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChangeGate } from "../../../src/review/change-gate.ts";
import { countGitProcesses, git, makeGitRepo, writeFiles } from "../../support/git.ts";
import { tempDir } from "../../support/temp.ts";

const ignore = (p: string) => /^(tmp|\.pi-subagents)\//.test(p) || /(^|\/)node_modules\//.test(p);

interface Step {
	tool: string;
	/** The tool's `path` argument (edit and write). */
	path?: string;
	act: () => void;
}

/** Git processes started during the last `run` (setup and checks made with git are not counted). */
let spawnedInRun = 0;

/** One run: each step's hooks around its file-system action, then the verdict. */
async function run(gate: ChangeGate, steps: Step[]) {
	const before = spawns.count();
	try {
		return await runSteps(gate, steps);
	} finally {
		spawnedInRun = spawns.count() - before;
	}
}

async function runSteps(gate: ChangeGate, steps: Step[]) {
	for (const step of steps) {
		const input = step.path === undefined ? {} : { path: step.path };
		await gate.beforeTool(step.tool, input);
		step.act();
		gate.afterTool(step.tool, input, false);
	}
	return gate.finish();
}

/** The paths `git status` lists (tracked changes and untracked, not ignored). */
const gitListed = (repo: string) =>
	git(repo, "status", "--porcelain", "--untracked-files=all")
		.split("\n")
		.filter(Boolean)
		.map((l) => l.slice(3))
		.sort();

const write = (repo: string, path: string, content: string): Step => ({
	tool: "write",
	path,
	act: () => writeFiles(repo, { [path]: content }),
});

let spawns: ReturnType<typeof countGitProcesses>;
beforeEach(() => {
	spawns = countGitProcesses();
});
afterEach(() => spawns.restore());

describe("an edit-only run", () => {
	it("reports the files it changed, with no git process", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "b.txt": "b\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, [
			write(repo, "a.txt", "b\n"),
			write(repo, "src/new.ts", "n\n"),
			{ tool: "edit", path: join(repo, "b.txt"), act: () => writeFiles(repo, { "b.txt": "b2\n" }) },
		]);
		expect(verdict).toMatchObject({
			changed: true,
			via: "files",
			paths: ["a.txt", "b.txt", "src/new.ts"],
			head: git(repo, "rev-parse", "HEAD").trim(),
		});
		expect(spawnedInRun).toBe(0);
		expect(gate.git?.processes).toBe(0);
	});

	it("sees a same-size edit of a small file (hashed at once) and of a large one (hashed in the thread pool), and a revert of both", async () => {
		const small = "s".repeat(1000);
		const large = "L".repeat(400 * 1024);
		const repo = makeGitRepo({ "small.txt": small, "large.bin": large });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const flip = (text: string) => `x${text.slice(1)}`;
		const changed = await run(gate, [write(repo, "small.txt", flip(small)), write(repo, "large.bin", flip(large))]);
		expect(changed).toMatchObject({ changed: true, via: "files", paths: ["large.bin", "small.txt"] });
		const reverted = await run(gate, [
			write(repo, "small.txt", flip(small)),
			write(repo, "small.txt", small),
			write(repo, "large.bin", large),
		]);
		expect(reverted).toMatchObject({ changed: true, via: "files", paths: ["large.bin", "small.txt"] });
		const back = await run(gate, [
			write(repo, "small.txt", "tmp"),
			write(repo, "small.txt", small),
			write(repo, "large.bin", flip(large)),
			write(repo, "large.bin", large),
		]);
		expect(back).toMatchObject({ changed: false, via: "files", paths: [] });
		expect(spawnedInRun).toBe(0);
	});

	it("sees no change when the run reverted its edits, the user's dirty file included", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		writeFiles(repo, { "dirty.txt": "user work\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, [
			write(repo, "a.txt", "b\n"), // same size: only the content tells
			write(repo, "dirty.txt", "agent rewrote\n"),
			write(repo, "a.txt", "a\n"),
			write(repo, "dirty.txt", "user work\n"),
		]);
		expect(verdict).toMatchObject({ changed: false, paths: [], via: "files" });
		expect(spawnedInRun).toBe(0);
	});

	it("does not count an ignored path, but does count a tracked file an ignore pattern matches", async () => {
		const repo = makeGitRepo({
			".gitignore": "dist/\n*.log\n!keep.log\n",
			"pkg/.gitignore": "gen/\n!dist/\n",
			"README.md": "r\n",
		});
		writeFiles(repo, { "forced.log": "f\n" });
		git(repo, "add", "-f", "forced.log");
		git(repo, "commit", "-qm", "forced");
		writeFiles(repo, { ".git/info/exclude": "secret.txt\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, [
			write(repo, "dist/app.js", "x\n"),
			write(repo, "debug.log", "x\n"),
			write(repo, "secret.txt", "x\n"),
			write(repo, "pkg/gen/out.ts", "x\n"),
			write(repo, "tmp/scratch.txt", "x\n"),
			write(repo, "keep.log", "x\n"), // re-included by a negation
			write(repo, "forced.log", "f2\n"), // tracked despite *.log
		]);
		expect(verdict.paths).toEqual(["forced.log", "keep.log"]);
		expect(spawnedInRun).toBe(0);
		// What git itself says about the same tree (tmp/ is the watchdog's own exclusion).
		expect(gitListed(repo).filter((p) => !ignore(p))).toEqual(["forced.log", "keep.log"]);
	});

	it("reads the excludes file git's config names, and asks git when the config includes other files", async () => {
		const repo = makeGitRepo({ "README.md": "r\n" });
		const excludes = join(tempDir(), "excludes");
		writeFileSync(excludes, "*.bak\n");
		git(repo, "config", "core.excludesFile", excludes);
		const gate = new ChangeGate({ cwd: repo, ignore });
		expect(await run(gate, [write(repo, "x.bak", "x\n"), write(repo, "y.txt", "y\n")])).toMatchObject({
			via: "files",
			paths: ["y.txt"],
		});
		expect(spawnedInRun).toBe(0);
		git(repo, "config", "include.path", join(tempDir(), "more.gitconfig"));
		expect(await run(gate, [write(repo, "z.bak", "z\n"), write(repo, "w.txt", "w\n")])).toMatchObject({
			via: "files",
			paths: ["w.txt"],
		});
		expect(spawnedInRun).toBe(1); // one ls-files for the paths in doubt, never a status
	});

	it("asks git (one ls-files, no status) only for a folder a deeper .gitignore re-includes", async () => {
		const repo = makeGitRepo({ ".gitignore": "dist/\n", "pkg/.gitignore": "!dist/\n", "README.md": "r\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, [write(repo, "pkg/dist/kept.js", "x\n"), write(repo, "dist/gone.js", "x\n")]);
		expect(verdict).toMatchObject({ via: "files", paths: ["pkg/dist/kept.js"] });
		expect(spawnedInRun).toBe(1);
		expect(gitListed(repo)).toEqual(["pkg/dist/kept.js"]);
	});

	it("follows a link to the file it writes, and ignores a file outside the repository", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "dir/b.txt": "b\n" });
		const outside = tempDir();
		writeFileSync(join(outside, "o.txt"), "o\n");
		symlinkSync("a.txt", join(repo, "link.txt"));
		symlinkSync("dir", join(repo, "dirlink"));
		symlinkSync(join(outside, "o.txt"), join(repo, "out.txt"));
		git(repo, "add", "link.txt", "dirlink", "out.txt");
		git(repo, "commit", "-qm", "links");
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, [
			{ tool: "edit", path: "link.txt", act: () => writeFileSync(join(repo, "link.txt"), "through the link\n") },
			{ tool: "edit", path: "dirlink/b.txt", act: () => writeFileSync(join(repo, "dirlink/b.txt"), "b2\n") },
			{ tool: "write", path: "out.txt", act: () => writeFileSync(join(repo, "out.txt"), "outside\n") },
			{ tool: "write", path: join(outside, "p.txt"), act: () => writeFileSync(join(outside, "p.txt"), "p\n") },
		]);
		expect(verdict).toMatchObject({ changed: true, via: "files", paths: ["a.txt", "dir/b.txt"] });
		expect(spawnedInRun).toBe(0);
	});

	it("falls back to git status when a bash call follows the edits, and still sees the edits", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "c.txt": "c\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, [
			write(repo, "a.txt", "a2\n"),
			write(repo, "c.txt", "c2\n"),
			{ tool: "bash", act: () => writeFiles(repo, { "b.txt": "b\n", "c.txt": "c\n" }) },
		]);
		expect(verdict).toMatchObject({ changed: true, via: "git", paths: ["a.txt", "b.txt"] });
		expect(spawnedInRun).toBeGreaterThan(0);
		expect(spawnedInRun).toBe(gate.git?.processes);
	});

	it("falls back for an edit of a path it cannot place (Pi's ~ form)", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, [
			{ tool: "edit", path: "~/elsewhere.txt", act: () => writeFiles(repo, { "a.txt": "a2\n" }) },
		]);
		expect(verdict).toMatchObject({ changed: true, via: "git", paths: ["a.txt"] });
		expect(spawnedInRun).toBeGreaterThan(0);
	});

	it("falls back for a file inside a nested repository", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		mkdirSync(join(repo, "inner"));
		git(join(repo, "inner"), "init", "-q");
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, [write(repo, "inner/x.txt", "x\n")]);
		expect(verdict.via).toBe("git");
		expect(verdict.paths).toEqual(["inner/"]);
	});

	it("leaves the next run's start state true: a later bash run is not blamed for the edits", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "d.txt": "d\n" });
		writeFiles(repo, { "d.txt": "user work\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		// One mixed run first, so the gate holds an end state.
		expect((await run(gate, [{ tool: "bash", act: () => writeFiles(repo, { "e.txt": "e\n" }) }])).paths).toEqual([
			"e.txt",
		]);
		// Edits only: a.txt becomes dirty, d.txt is restored to HEAD.
		expect((await run(gate, [write(repo, "a.txt", "a2\n"), write(repo, "d.txt", "d\n")])).paths).toEqual([
			"a.txt",
			"d.txt",
		]);
		expect(spawnedInRun).toBe(0);
		// A bash run that changes nothing, then one that reverts a.txt.
		expect(await run(gate, [{ tool: "bash", act: () => {} }])).toMatchObject({ changed: false, via: "git" });
		expect((await run(gate, [{ tool: "bash", act: () => writeFiles(repo, { "a.txt": "a\n" }) }])).paths).toEqual([
			"a.txt",
		]);
	});

	it("after edits alone, a bash run that does nothing sees no change (start state kept without git)", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		await run(gate, [{ tool: "bash", act: () => {} }]);
		await run(gate, [write(repo, "a.txt", "a2\n")]);
		await run(gate, [write(repo, "a.txt", "a\n")]); // restored to HEAD by an edit
		expect(await run(gate, [{ tool: "bash", act: () => {} }])).toMatchObject({ changed: false, paths: [] });
	});

	it("an edit that restores a file, then bash, counts the restore", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "x.log": "tracked\n" });
		writeFiles(repo, { "a.txt": "user work\n", ".gitignore": "*.log\nbuild/\n" });
		const gate = new ChangeGate({ cwd: repo, ignore });
		const verdict = await run(gate, [
			write(repo, "a.txt", "a\n"),
			write(repo, "build/o.js", "o\n"),
			{ tool: "bash", act: () => {} },
		]);
		expect(verdict.paths).toEqual(["a.txt"]);
		rmSync(join(repo, "build"), { recursive: true });
	});
});
