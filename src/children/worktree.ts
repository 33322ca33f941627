// Git worktrees for writing children. A child gets a detached worktree made from a snapshot
// commit of the parent's current state (HEAD plus staged, unstaged and untracked changes);
// when it finishes, its changes are merged three-way into the parent's working tree as it is
// then. The parent's index, stash and refs are never touched: snapshots are built in a
// private index (GIT_INDEX_FILE), and landing writes files through a private index too.
// The snapshot commit has no ref: the worktree's detached HEAD keeps it from gc while the
// worktree exists, and nothing is left behind once the worktree is removed.
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { gitOk, oneLine, runGit, SLOW_GIT_MS } from "../util/index.ts";

export interface ChildWorktree {
	/** The parent repository's top folder. */
	root: string;
	/** The worktree's folder. */
	dir: string;
	/** The snapshot commit the worktree was made from. */
	base: string;
}

export interface LandResult {
	/** applied: the child's changes are in the parent's files; conflict: nothing was written. */
	status: "applied" | "conflict" | "unchanged";
	/** Repo-relative paths the child changed (added, modified, deleted), sorted. */
	paths: string[];
	/** On conflict: the files both sides changed in ways that do not merge. */
	conflicts?: string[];
	/** On conflict: the child's whole change as a binary-safe patch against its base. */
	patchPath?: string;
}

/** Who the snapshot commits say made them (the user's identity may not be configured). */
const IDENTITY = {
	GIT_AUTHOR_NAME: "pi-watchdog",
	GIT_AUTHOR_EMAIL: "pi-watchdog@localhost",
	GIT_COMMITTER_NAME: "pi-watchdog",
	GIT_COMMITTER_EMAIL: "pi-watchdog@localhost",
};
/** How often a landing re-merges when the parent's files change under it. */
const LAND_ATTEMPTS = 3;
const GITLINK = "160000";

// Snapshots and landings of one repository run one at a time (within this process), so that a
// child never lands into a tree another landing is halfway through writing.
const queues = new Map<string, Promise<unknown>>();
function oneAtATime<T>(root: string, work: () => Promise<T>): Promise<T> {
	const next = (queues.get(root) ?? Promise.resolve()).then(work, work);
	const tail = next.then(
		() => {},
		() => {},
	);
	queues.set(root, tail);
	void tail.then(() => {
		if (queues.get(root) === tail) queues.delete(root);
	});
	return next;
}

async function topLevel(cwd: string, signal?: AbortSignal): Promise<string> {
	let isFolder = false;
	try {
		isFolder = statSync(cwd).isDirectory();
	} catch {}
	if (!isFolder) throw new Error(`not a git repository: ${cwd} (no such folder)`);
	const run = await runGit(["rev-parse", "--show-toplevel"], { cwd, signal });
	const top = run.stdout.trim();
	if (run.code === 0 && top) return top;
	if (/not a git repository/i.test(run.stderr)) throw new Error(`not a git repository: ${cwd}`);
	throw new Error(`no git work tree at ${cwd}: ${oneLine(run.stderr) || `git exit code ${run.code}`}`);
}

async function headCommit(top: string, signal?: AbortSignal): Promise<string | undefined> {
	// An unborn branch (a repository without commits) has no HEAD commit yet.
	const run = await runGit(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { cwd: top, signal });
	return run.code === 0 ? run.stdout.trim() : undefined;
}

/** Runs `work` with a private index file in a temporary folder, removed afterwards. */
async function withPrivateIndex<T>(work: (env: Record<string, string>) => Promise<T>): Promise<T> {
	const folder = mkdtempSync(join(tmpdir(), "pi-watchdog-index-"));
	try {
		return await work({ GIT_INDEX_FILE: join(folder, "index") });
	} finally {
		rmSync(folder, { recursive: true, force: true });
	}
}

/** The tree of a work tree's current files (tracked and untracked, not ignored), written without touching its index. */
async function snapshotTree(top: string, signal?: AbortSignal): Promise<string> {
	const indexPath = resolve(top, (await gitOk(["rev-parse", "--git-path", "index"], { cwd: top, signal })).trim());
	const head = await headCommit(top, signal);
	return withPrivateIndex(async (env) => {
		// Starting from a copy of the real index keeps its stat data (git re-reads only files that
		// changed) and its tracked-but-ignored files. The copy keeps the index's time, a hair
		// earlier if anything: git trusts an entry's stat data only when the file is older than the
		// index, so a newer copy would hide a same-size edit made just after the index was written.
		if (existsSync(indexPath)) {
			const written = statSync(indexPath).mtimeMs;
			copyFileSync(indexPath, env.GIT_INDEX_FILE);
			utimesSync(env.GIT_INDEX_FILE, (written - 1) / 1000, (written - 1) / 1000);
		} else if (head) await gitOk(["read-tree", head], { cwd: top, env, signal, timeoutMs: SLOW_GIT_MS });
		await gitOk(["add", "--all", "--", "."], { cwd: top, env, signal, timeoutMs: SLOW_GIT_MS });
		return (await gitOk(["write-tree"], { cwd: top, env, signal, timeoutMs: SLOW_GIT_MS })).trim();
	});
}

async function commitTree(root: string, tree: string, parent: string | undefined, message: string, signal?: AbortSignal): Promise<string> {
	const args = ["commit-tree", "--no-gpg-sign", "-m", message, ...(parent ? ["-p", parent] : []), tree];
	return (await gitOk(args, { cwd: root, env: IDENTITY, signal })).trim();
}

async function treeOf(root: string, commit: string, signal?: AbortSignal): Promise<string> {
	return (await gitOk(["rev-parse", "--verify", `${commit}^{tree}`], { cwd: root, signal })).trim();
}

interface TreeChange {
	status: string;
	path: string;
	newMode: string;
	oldMode: string;
}

/** What differs between two trees, file by file (renames as a deletion plus an addition). */
async function treeChanges(root: string, from: string, to: string, signal?: AbortSignal): Promise<TreeChange[]> {
	const raw = await gitOk(["diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-abbrev", from, to], { cwd: root, signal, timeoutMs: SLOW_GIT_MS });
	const fields = raw.split("\0");
	const changes: TreeChange[] = [];
	// Each entry is ":<old mode> <new mode> <old id> <new id> <status>" NUL "<path>" NUL.
	for (let i = 0; i + 1 < fields.length; i += 2) {
		const [oldMode, newMode, , , status] = fields[i].replace(/^:/, "").split(" ");
		if (status) changes.push({ status, path: fields[i + 1], newMode, oldMode });
	}
	return changes;
}

/**
 * A worktree made from the parent's current state: HEAD plus staged, unstaged and untracked
 * (not ignored) changes, without touching the parent's index, working tree, stash or refs.
 * `dir` must not exist yet (or be empty); its parent folders are created.
 */
export async function createWorktree(cwd: string, dir: string, signal?: AbortSignal): Promise<ChildWorktree> {
	const root = await topLevel(cwd, signal);
	const target = resolve(dir);
	return oneAtATime(root, async () => {
		const tree = await snapshotTree(root, signal);
		const base = await commitTree(root, tree, await headCommit(root, signal), "pi-watchdog: the parent's state for a child worktree", signal);
		mkdirSync(dirname(target), { recursive: true });
		let added: Awaited<ReturnType<typeof runGit>>;
		try {
			added = await runGit(["worktree", "add", "--detach", "--quiet", target, base], { cwd: root, signal, timeoutMs: SLOW_GIT_MS });
		} catch (error) {
			// Killed halfway (deadline or abort): do not leave a half-made worktree registered.
			await removeWorktree({ root, dir: target, base });
			throw error;
		}
		if (added.code !== 0) throw new Error(`cannot create a worktree at ${target}: ${oneLine(added.stderr) || `git exit code ${added.code}`}`);
		return { root, dir: target, base };
	});
}

/** Three-way merge of two commits sharing the base snapshot as parent; nothing is written to any work tree. */
async function mergeCommits(root: string, ours: string, theirs: string, signal?: AbortSignal): Promise<{ tree: string; conflicts: string[] }> {
	const run = await runGit(["merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", ours, theirs], { cwd: root, signal, timeoutMs: SLOW_GIT_MS });
	if (run.code !== 0 && run.code !== 1) {
		const old = /usage|unknown option/i.test(run.stderr) ? " (landing needs git 2.38 or newer)" : "";
		throw new Error(`git merge-tree failed${old}: ${oneLine(run.stderr) || `exit code ${run.code}`}`);
	}
	// "<tree>" NUL, then on conflicts each conflicted path NUL (once per stage), then an empty field.
	const [tree, ...rest] = run.stdout.split("\0");
	const end = rest.indexOf("");
	const conflicts = run.code === 1 ? [...new Set(end < 0 ? rest : rest.slice(0, end))].sort() : [];
	if (run.code === 1 && conflicts.length === 0) conflicts.push("(unnamed conflict)");
	return { tree: tree.trim(), conflicts };
}

function removeFile(root: string, path: string): void {
	const full = join(root, path);
	try {
		if (lstatSync(full).isDirectory()) return; // a folder there now is not the file git meant
		rmSync(full, { force: true });
	} catch {
		return; // already gone
	}
	// Drop folders the deletion left empty, as git does, never the top folder itself.
	for (let folder = dirname(full); folder !== root && !relative(root, folder).startsWith(".."); folder = dirname(folder)) {
		try {
			if (readdirSync(folder).length > 0) break;
			rmdirSync(folder);
		} catch {
			break;
		}
	}
}

/** Makes the parent's files for `changes` (from its snapshot to the merged tree) what the merged tree holds. */
async function writeMerged(root: string, merged: string, changes: TreeChange[], signal?: AbortSignal): Promise<void> {
	const files = changes.filter((c) => c.newMode !== GITLINK && c.oldMode !== GITLINK);
	for (const change of files) if (change.status === "D" || change.status === "T") removeFile(root, change.path);
	const writes = files.filter((c) => c.status !== "D").map((c) => c.path);
	if (writes.length === 0) return;
	await withPrivateIndex(async (env) => {
		await gitOk(["read-tree", merged], { cwd: root, env, signal, timeoutMs: SLOW_GIT_MS });
		// checkout-index writes through git's own checkout (filters, modes, symlinks, binary).
		await gitOk(["checkout-index", "--force", "-z", "--stdin"], { cwd: root, env, signal, input: `${writes.join("\0")}\0`, timeoutMs: SLOW_GIT_MS });
	});
}

function patchFileName(name: string): string {
	const safe = name.replace(/[^\p{L}\p{N}._-]+/gu, "_").replace(/^[.]+/, "").slice(0, 100);
	return `${safe || "child"}.patch`;
}

/**
 * Applies the child's changes (its worktree's files vs its base, ignored files excluded) to the
 * parent's working tree, merged three-way with the parent's files as they are now. On conflict
 * nothing in the parent changes and the child's patch is kept under `patchDir`.
 */
export async function landWorktree(wt: ChildWorktree, patchDir: string, name: string, signal?: AbortSignal): Promise<LandResult> {
	if (!existsSync(wt.dir)) throw new Error(`the child's worktree is gone: ${wt.dir}`);
	return oneAtATime(wt.root, async () => {
		const baseTree = await treeOf(wt.root, wt.base, signal);
		const childTree = await snapshotTree(wt.dir, signal);
		if (childTree === baseTree) return { status: "unchanged", paths: [] };
		const child = await commitTree(wt.root, childTree, wt.base, "pi-watchdog: a child's work", signal);
		const paths = [...new Set((await treeChanges(wt.root, baseTree, childTree, signal)).map((c) => c.path))].sort();
		let parentTree = await snapshotTree(wt.root, signal);
		for (let attempt = 1; ; attempt++) {
			const parent = await commitTree(wt.root, parentTree, wt.base, "pi-watchdog: the parent's state at landing", signal);
			const merge = await mergeCommits(wt.root, parent, child, signal);
			if (merge.conflicts.length > 0) {
				mkdirSync(patchDir, { recursive: true });
				const patchPath = join(resolve(patchDir), patchFileName(name));
				const diff = ["diff", "--binary", "--full-index", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", `--output=${patchPath}`, wt.base, child];
				await gitOk(diff, { cwd: wt.root, signal, timeoutMs: SLOW_GIT_MS });
				return { status: "conflict", paths, conflicts: merge.conflicts, patchPath };
			}
			const changes = await treeChanges(wt.root, parentTree, merge.tree, signal);
			// The parent's agent may be editing while a child lands: write only when none of the
			// files about to be written changed since the snapshot the merge was made against.
			const now = await snapshotTree(wt.root, signal);
			const moved = now === parentTree ? [] : (await treeChanges(wt.root, parentTree, now, signal)).map((c) => c.path);
			const writing = new Set(changes.map((c) => c.path));
			if (!moved.some((p) => writing.has(p))) {
				await writeMerged(wt.root, merge.tree, changes, signal);
				return { status: "applied", paths };
			}
			if (attempt >= LAND_ATTEMPTS) throw new Error(`the parent's files kept changing while a child landed (${moved.filter((p) => writing.has(p)).slice(0, 5).join(", ")}); nothing was written`);
			parentTree = now;
		}
	});
}

/** Removes the worktree folder and git's record of it; never throws. */
export async function removeWorktree(wt: ChildWorktree): Promise<void> {
	try {
		// Twice --force: also a locked worktree, and one with changes (it is ours to drop).
		await runGit(["worktree", "remove", "--force", "--force", wt.dir], { cwd: wt.root, timeoutMs: SLOW_GIT_MS });
	} catch {}
	try {
		// git refused (e.g. the record was already pruned): drop the folder if it is a worktree's.
		if (existsSync(wt.dir) && lstatSync(join(wt.dir, ".git")).isFile()) rmSync(wt.dir, { recursive: true, force: true });
	} catch {}
	try {
		await runGit(["worktree", "prune"], { cwd: wt.root });
	} catch {}
}

function isInside(path: string, folder: string): boolean {
	const rel = relative(folder, path);
	return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/**
 * Removes the worktrees registered in the repository at `cwd` that live under `runsDir` and
 * whose run is not alive, then prunes git's records. Returns the folders removed.
 */
export async function cleanStaleWorktrees(cwd: string, runsDir: string, isAlive: (worktreeDir: string) => boolean): Promise<string[]> {
	let root: string;
	try {
		root = await topLevel(cwd);
	} catch {
		return []; // no repository, no worktrees of ours
	}
	const folders = [resolve(runsDir)];
	try {
		folders.push(realpathSync(runsDir));
	} catch {}
	const removed: string[] = [];
	try {
		const list = await runGit(["worktree", "list", "--porcelain", "-z"], { cwd: root });
		const dirs = list.stdout
			.split("\0")
			.filter((f) => f.startsWith("worktree "))
			.map((f) => f.slice("worktree ".length))
			.slice(1); // the first is the main work tree
		for (const dir of dirs) {
			if (!folders.some((folder) => isInside(dir, folder))) continue;
			let alive = true;
			try {
				alive = isAlive(dir);
			} catch {} // a liveness check that fails keeps the worktree: removing a live one loses work
			if (alive) continue;
			await removeWorktree({ root, dir, base: "" });
			removed.push(dir);
		}
	} catch {}
	try {
		await runGit(["worktree", "prune"], { cwd: root });
	} catch {}
	return removed;
}
