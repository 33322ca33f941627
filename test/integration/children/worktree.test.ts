import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	type ChildWorktree,
	cleanStaleWorktrees,
	createWorktree,
	landWorktree,
	removeWorktree,
} from "../../../src/git/index.ts";
import { git, makeGitRepo, writeFiles } from "../../support/git.ts";
import { tempDir } from "../../support/temp.ts";

/** Everything of the parent that making, landing and removing worktrees must leave as it was. */
function parentState(repo: string) {
	const index = join(repo, ".git", "index");
	return {
		index: existsSync(index) ? createHash("sha256").update(readFileSync(index)).digest("hex") : "none",
		status: git(repo, "--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=all", "--ignored"),
		stash: git(repo, "stash", "list"),
		refs: git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
		head: git(repo, "symbolic-ref", "-q", "HEAD"),
		// The main work tree's HEAD log (a worktree keeps its own HEAD log while it exists).
		reflog: git(repo, "reflog", "show", "HEAD"),
	};
}

const read = (path: string) => readFileSync(path, "utf8");
const worktreeList = (repo: string) => git(repo, "worktree", "list", "--porcelain");
let runCount = 0;
const worktreeDir = (runs: string, n = 1) => join(runs, `run-${++runCount}`, "worktrees", String(n));

/** A repository with a committed file, a staged change, an unstaged change, an untracked file and an ignored one. */
function busyRepo(): string {
	const repo = makeGitRepo({
		"lines.txt": "one\ntwo\nthree\nfour\nfive\n",
		"keep.txt": "kept\n",
		".gitignore": "*.log\nbuild/\n",
		"gone.txt": "to delete\n",
	});
	writeFiles(repo, { "staged.txt": "staged\n" });
	git(repo, "add", "staged.txt");
	writeFiles(repo, {
		"keep.txt": "kept, edited\n",
		"untracked/new.txt": "untracked\n",
		"debug.log": "ignored\n",
		"build/out.js": "ignored\n",
	});
	return repo;
}

describe("a child's worktree", () => {
	it("holds HEAD plus staged, unstaged and untracked changes, not ignored files, and leaves the parent as it was", async () => {
		const repo = busyRepo();
		git(repo, "stash", "list"); // (nothing stashed; the list must stay so)
		const before = parentState(repo);
		const allLogs = git(repo, "reflog", "--all");
		const wt = await createWorktree(join(repo, "untracked"), worktreeDir(tempDir()));
		expect(wt.root).toBe(git(repo, "rev-parse", "--show-toplevel").trim());
		expect(read(join(wt.dir, "staged.txt"))).toBe("staged\n");
		expect(read(join(wt.dir, "keep.txt"))).toBe("kept, edited\n");
		expect(read(join(wt.dir, "untracked/new.txt"))).toBe("untracked\n");
		expect(existsSync(join(wt.dir, "debug.log"))).toBe(false);
		expect(existsSync(join(wt.dir, "build"))).toBe(false);
		// The worktree starts clean at the snapshot, whose parent is the parent's HEAD.
		expect(git(wt.dir, "status", "--porcelain")).toBe("");
		expect(git(wt.dir, "rev-parse", "HEAD").trim()).toBe(wt.base);
		expect(git(repo, "rev-parse", `${wt.base}^`).trim()).toBe(git(repo, "rev-parse", "HEAD").trim());
		expect(parentState(repo)).toEqual(before);
		// The worktree's HEAD keeps the snapshot through a gc that prunes everything unreachable.
		git(repo, "gc", "--quiet", "--prune=now");
		git(repo, "cat-file", "-e", wt.base);
		// Landing and removing leave no ref, stash or index change behind either.
		writeFiles(wt.dir, { "from-child.txt": "child\n" });
		expect((await landWorktree(wt, tempDir(), "child")).status).toBe("applied");
		await removeWorktree(wt);
		const after = parentState(repo);
		expect(after.index).toBe(before.index);
		expect([after.stash, after.refs, after.head, after.reflog]).toEqual([
			before.stash,
			before.refs,
			before.head,
			before.reflog,
		]);
		expect(after.status.split("\n").filter(Boolean).sort()).toEqual(
			[...before.status.split("\n").filter(Boolean), "?? from-child.txt"].sort(),
		);
		expect(git(repo, "reflog", "--all")).toBe(allLogs);
		// Nothing keeps the snapshot once the worktree is gone.
		git(repo, "gc", "--quiet", "--prune=now");
		expect(() => git(repo, "cat-file", "-e", wt.base)).toThrow();
		expect(existsSync(wt.dir)).toBe(false);
		expect(worktreeList(repo)).not.toContain(wt.dir);
	});

	it("works in a repository without commits", async () => {
		const repo = tempDir("pi-watchdog-unborn-");
		git(repo, "init", "-q");
		writeFiles(repo, { "a.txt": "a\n" });
		const wt = await createWorktree(repo, worktreeDir(tempDir()));
		expect(read(join(wt.dir, "a.txt"))).toBe("a\n");
		expect(git(repo, "for-each-ref")).toBe("");
		await removeWorktree(wt);
	});

	it("cannot be made outside a git repository, and says so", async () => {
		const folder = tempDir("pi-watchdog-plain-");
		await expect(createWorktree(folder, join(tempDir(), "wt"))).rejects.toThrow(`not a git repository: ${folder}`);
		await expect(createWorktree(join(folder, "missing"), join(tempDir(), "wt"))).rejects.toThrow(
			/not a git repository: .*missing/,
		);
	});

	it("cannot be made over a folder that has files, and says where", async () => {
		const repo = makeGitRepo();
		const dir = tempDir("pi-watchdog-taken-");
		writeFileSync(join(dir, "file"), "x");
		await expect(createWorktree(repo, dir)).rejects.toThrow(`cannot create a worktree at ${dir}`);
		expect(worktreeList(repo)).not.toContain(dir);
	});
});

describe("landing a child's changes in the parent", () => {
	it("lands two children that changed different files, and keeps the parent's own edits and index", async () => {
		const repo = busyRepo();
		const runs = tempDir();
		const a = await createWorktree(repo, worktreeDir(runs, 1));
		const b = await createWorktree(repo, worktreeDir(runs, 2));
		writeFiles(a.dir, { "lines.txt": "one\ntwo\nTHREE\nfour\nfive\n" });
		writeFiles(b.dir, { "keep.txt": "kept, edited by b\n", "b/new.txt": "b\n" });
		// Meanwhile the parent edits another file and stages it.
		writeFiles(repo, { "staged.txt": "staged, then edited\n" });
		git(repo, "add", "staged.txt");
		const index = parentState(repo).index;
		// Both finish at once: landings into one repository take turns.
		const [landedA, landedB] = await Promise.all([
			landWorktree(a, join(runs, "patches"), "a"),
			landWorktree(b, join(runs, "patches"), "b"),
		]);
		expect(landedA).toEqual({ status: "applied", paths: ["lines.txt"] });
		expect(landedB).toEqual({ status: "applied", paths: ["b/new.txt", "keep.txt"] });
		expect(read(join(repo, "lines.txt"))).toBe("one\ntwo\nTHREE\nfour\nfive\n");
		expect(read(join(repo, "keep.txt"))).toBe("kept, edited by b\n");
		expect(read(join(repo, "b/new.txt"))).toBe("b\n");
		expect(read(join(repo, "staged.txt"))).toBe("staged, then edited\n");
		expect(read(join(repo, "debug.log"))).toBe("ignored\n");
		expect(parentState(repo).index).toBe(index);
		expect(existsSync(join(runs, "patches"))).toBe(false);
		await Promise.all([removeWorktree(a), removeWorktree(b)]);
	});

	it("merges a child's edit with the parent's later edit of other lines of the same file", async () => {
		const repo = makeGitRepo({ "lines.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\n" });
		const wt = await createWorktree(repo, worktreeDir(tempDir()));
		writeFiles(wt.dir, { "lines.txt": "one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n" });
		writeFiles(repo, { "lines.txt": "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n" });
		expect((await landWorktree(wt, tempDir(), "x")).status).toBe("applied");
		expect(read(join(repo, "lines.txt"))).toBe("ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n");
		await removeWorktree(wt);
	});

	it("refuses the second of two children that changed the same lines: the parent's files stay byte for byte, the patch is kept and applies to the base", async () => {
		const repo = busyRepo();
		const runs = tempDir();
		const a = await createWorktree(repo, worktreeDir(runs, 1));
		const b = await createWorktree(repo, worktreeDir(runs, 2));
		writeFiles(a.dir, { "lines.txt": "one\nTWO by a\nthree\nfour\nfive\n" });
		writeFiles(b.dir, { "lines.txt": "one\nTWO by b\nthree\nfour\nfive\n", "b-only.txt": "b\n" });
		expect((await landWorktree(a, join(runs, "patches"), "a")).status).toBe("applied");
		const files = ["lines.txt", "keep.txt", "staged.txt", "untracked/new.txt"].map((f) => readFileSync(join(repo, f)));
		const before = parentState(repo);
		const landed = await landWorktree(b, join(runs, "patches"), "b child #2");
		expect(landed.status).toBe("conflict");
		expect(landed.conflicts).toEqual(["lines.txt"]);
		expect(landed.paths).toEqual(["b-only.txt", "lines.txt"]);
		expect(landed.patchPath).toBe(join(runs, "patches", "b_child_2.patch"));
		expect(
			["lines.txt", "keep.txt", "staged.txt", "untracked/new.txt"].map((f) => readFileSync(join(repo, f))),
		).toEqual(files);
		expect(existsSync(join(repo, "b-only.txt"))).toBe(false);
		expect(parentState(repo)).toEqual(before);
		// The kept patch is the child's whole change and applies cleanly to the snapshot it was made from.
		const patch = read(landed.patchPath ?? "");
		expect(patch).toContain("+TWO by b");
		expect(patch).toContain("b-only.txt");
		const check = join(tempDir(), "check");
		git(repo, "worktree", "add", "--detach", "--quiet", check, b.base);
		git(check, "apply", "--check", landed.patchPath ?? "");
		git(check, "apply", landed.patchPath ?? "");
		expect(read(join(check, "lines.txt"))).toBe("one\nTWO by b\nthree\nfour\nfive\n");
		git(repo, "worktree", "remove", "--force", check);
		await Promise.all([removeWorktree(a), removeWorktree(b)]);
	});

	it("lands a deletion, a new file, a binary file and a mode change", async () => {
		const repo = busyRepo();
		const binary = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 0x80, 0x81]);
		writeFileSync(join(repo, "image.bin"), binary);
		const wt = await createWorktree(repo, worktreeDir(tempDir()));
		rmSync(join(wt.dir, "gone.txt"));
		writeFiles(wt.dir, { "deep/er/new.txt": "new\n" });
		const changed = Buffer.concat([binary, Buffer.from([0, 0, 7])]);
		writeFileSync(join(wt.dir, "image.bin"), changed);
		writeFileSync(join(wt.dir, "fresh.bin"), Buffer.from([0xff, 0, 0xfe, 0]));
		chmodSync(join(wt.dir, "keep.txt"), 0o755);
		const landed = await landWorktree(wt, tempDir(), "w");
		expect(landed).toEqual({
			status: "applied",
			paths: ["deep/er/new.txt", "fresh.bin", "gone.txt", "image.bin", "keep.txt"],
		});
		expect(existsSync(join(repo, "gone.txt"))).toBe(false);
		expect(read(join(repo, "deep/er/new.txt"))).toBe("new\n");
		expect(readFileSync(join(repo, "image.bin")).equals(changed)).toBe(true);
		expect(readFileSync(join(repo, "fresh.bin")).equals(Buffer.from([0xff, 0, 0xfe, 0]))).toBe(true);
		expect(statSync(join(repo, "keep.txt")).mode & 0o111).not.toBe(0);
		expect(read(join(repo, "keep.txt"))).toBe("kept, edited\n");
		await removeWorktree(wt);
	});

	it("sees a same-size edit made in the same instant the worktree's index was written", async () => {
		const repo = makeGitRepo({ "same.txt": "three\n" });
		// Only size and mtime count, and the edit keeps both: git must look at the content
		// because the file is not older than the index (what a fast child does within a second).
		git(repo, "config", "core.checkStat", "minimal");
		const wt = await createWorktree(repo, worktreeDir(tempDir()));
		const file = join(wt.dir, "same.txt");
		const checkedOut = statSync(file).mtime;
		writeFileSync(file, "THREE\n");
		utimesSync(file, checkedOut, checkedOut);
		utimesSync(
			git(wt.dir, "rev-parse", "--path-format=absolute", "--git-path", "index").trim(),
			checkedOut,
			checkedOut,
		);
		expect(await landWorktree(wt, tempDir(), "fast")).toEqual({ status: "applied", paths: ["same.txt"] });
		expect(read(join(repo, "same.txt"))).toBe("THREE\n");
		await removeWorktree(wt);
	});

	it("says unchanged for a child that changed nothing (ignored files do not count)", async () => {
		const repo = busyRepo();
		const wt = await createWorktree(repo, worktreeDir(tempDir()));
		writeFiles(wt.dir, { "child.log": "ignored\n", "build/x.js": "ignored\n" });
		const before = parentState(repo);
		expect(await landWorktree(wt, tempDir(), "idle")).toEqual({ status: "unchanged", paths: [] });
		expect(parentState(repo)).toEqual(before);
		await removeWorktree(wt);
	});

	it("lands work the child committed in its worktree as well as work it left uncommitted", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const wt = await createWorktree(repo, worktreeDir(tempDir()));
		writeFiles(wt.dir, { "a.txt": "a, committed\n" });
		git(wt.dir, "-c", "user.name=c", "-c", "user.email=c@c", "commit", "-qam", "child commit");
		writeFiles(wt.dir, { "b.txt": "b\n" });
		expect(await landWorktree(wt, tempDir(), "c")).toEqual({ status: "applied", paths: ["a.txt", "b.txt"] });
		expect(read(join(repo, "a.txt"))).toBe("a, committed\n");
		await removeWorktree(wt);
		expect(git(repo, "for-each-ref", "--format=%(refname)").trim()).toBe("refs/heads/main");
	});

	it("works with spaces and non-ASCII letters in the repository, the worktree and file names", async () => {
		const repo = tempDir("pi watchdog répo ü ");
		git(repo, "init", "-q", "-b", "main");
		writeFiles(repo, { "dossier à/fichier é.txt": "un\ndeux\n", "plain.txt": "p\n" });
		git(repo, "add", "-A");
		git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
		const runs = tempDir("pi watchdog runs ñ ");
		const wt = await createWorktree(repo, join(runs, "run 1", "worktrees", "1"));
		writeFiles(wt.dir, { "dossier à/fichier é.txt": "un\nDEUX\n", "nouveau ü.txt": "neu\n" });
		expect(await landWorktree(wt, join(runs, "run 1", "patches"), "enfant ü")).toEqual({
			status: "applied",
			paths: ["dossier à/fichier é.txt", "nouveau ü.txt"],
		});
		expect(read(join(repo, "dossier à/fichier é.txt"))).toBe("un\nDEUX\n");
		expect(read(join(repo, "nouveau ü.txt"))).toBe("neu\n");
		expect(await cleanStaleWorktrees(repo, runs, () => false)).toEqual([wt.dir]);
		expect(git(repo, "worktree", "list", "--porcelain", "-z").split("\0")).not.toContain(`worktree ${wt.dir}`);
	});
});

describe("stale worktrees at session start", () => {
	it("removes the worktrees of runs that are not alive and keeps the rest", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const runs = tempDir();
		const dead: ChildWorktree = await createWorktree(repo, join(runs, "dead-run", "worktrees", "1"));
		const live = await createWorktree(repo, join(runs, "live-run", "worktrees", "1"));
		// Someone else's worktree outside the runs folder is never ours to remove.
		const other = join(tempDir(), "other");
		git(repo, "worktree", "add", "--detach", "--quiet", other);
		writeFiles(dead.dir, { "unsaved.txt": "kept through the crash\n" });
		const removed = await cleanStaleWorktrees(repo, runs, (dir) => dir.includes("live-run"));
		expect(removed).toEqual([dead.dir]);
		expect(existsSync(dead.dir)).toBe(false);
		// What the dead run's child wrote is kept as a patch in its run folder, and applies to the user's tree.
		const patch = join(runs, "dead-run", "worktree-1.patch");
		expect(read(patch)).toContain("+kept through the crash");
		git(repo, "apply", "--check", patch);
		expect(existsSync(join(runs, "live-run", "worktree-1.patch"))).toBe(false);
		const listed = worktreeList(repo);
		expect(listed).not.toContain(dead.dir);
		expect(listed).toContain(live.dir);
		expect(listed).toContain(other);
		// A liveness check that throws keeps the worktree.
		expect(
			await cleanStaleWorktrees(repo, runs, () => {
				throw new Error("cannot tell");
			}),
		).toEqual([]);
		expect(worktreeList(repo)).toContain(live.dir);
		await removeWorktree(live);
		expect(worktreeList(repo)).not.toContain(live.dir);
	});

	it("prunes the record of a worktree whose folder was deleted, and asks nothing outside a repository", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const runs = tempDir();
		const wt = await createWorktree(repo, join(runs, "crashed", "worktrees", "1"));
		rmSync(join(runs, "crashed"), { recursive: true, force: true });
		await cleanStaleWorktrees(repo, runs, () => false);
		expect(worktreeList(repo)).not.toContain(wt.dir);
		mkdirSync(join(runs, "x"));
		expect(await cleanStaleWorktrees(join(runs, "x"), runs, () => false)).toEqual([]);
	});

	it("removing never throws, also for a worktree that is already gone", async () => {
		const repo = makeGitRepo();
		await expect(removeWorktree({ root: repo, dir: join(tempDir(), "never-made"), base: "" })).resolves.toBeUndefined();
		await expect(
			removeWorktree({ root: join(tempDir(), "no-repo"), dir: join(tempDir(), "x"), base: "" }),
		).resolves.toBeUndefined();
	});
});
