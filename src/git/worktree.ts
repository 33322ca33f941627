// Git worktrees for writing children. A child gets a detached worktree made from a snapshot
// commit of the parent's current state (HEAD plus staged, unstaged and untracked changes);
// when it finishes, its changes are merged three-way into the parent's working tree as it is
// then (landing.ts). The parent's index, stash and refs are never touched: snapshots are built
// in a private index (GIT_INDEX_FILE), and landing writes files through a private index too.
// The snapshot commit has no ref: the worktree's detached HEAD keeps it from gc while the
// worktree exists, and nothing is left behind once the worktree is removed.
import {
	copyFileSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	realpathSync,
	rmSync,
	statSync,
	utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { oneLine } from "../util/index.ts";
import { gitOk, runGit, SLOW_GIT_MS } from "./git-process.ts";

export interface ChildWorktree {
	/** The parent repository's top folder. */
	root: string;
	/** The worktree's folder. */
	dir: string;
	/** The snapshot commit the worktree was made from. */
	base: string;
}

/** Who the snapshot commits say made them (the user's identity may not be configured). */
const IDENTITY = {
	GIT_AUTHOR_NAME: "pi-watchdog",
	GIT_AUTHOR_EMAIL: "pi-watchdog@localhost",
	GIT_COMMITTER_NAME: "pi-watchdog",
	GIT_COMMITTER_EMAIL: "pi-watchdog@localhost",
};

// Snapshots and landings of one repository run one at a time (within this process), so that a
// child never lands into a tree another landing is halfway through writing.
const queues = new Map<string, Promise<unknown>>();
export function oneAtATime<T>(root: string, work: () => Promise<T>): Promise<T> {
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
export async function withPrivateIndex<T>(work: (env: Record<string, string>) => Promise<T>): Promise<T> {
	const folder = mkdtempSync(join(tmpdir(), "pi-watchdog-index-"));
	try {
		return await work({ GIT_INDEX_FILE: join(folder, "index") });
	} finally {
		rmSync(folder, { recursive: true, force: true });
	}
}

/** The tree of a work tree's current files (tracked and untracked, not ignored), written without touching its index. */
export async function snapshotTree(top: string, signal?: AbortSignal): Promise<string> {
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

export async function commitTree(
	root: string,
	tree: string,
	parent: string | undefined,
	message: string,
	signal?: AbortSignal,
): Promise<string> {
	const args = ["commit-tree", "--no-gpg-sign", "-m", message, ...(parent ? ["-p", parent] : []), tree];
	return (await gitOk(args, { cwd: root, env: IDENTITY, signal })).trim();
}

export async function treeOf(root: string, commit: string, signal?: AbortSignal): Promise<string> {
	return (await gitOk(["rev-parse", "--verify", `${commit}^{tree}`], { cwd: root, signal })).trim();
}

export interface TreeChange {
	status: string;
	path: string;
	newMode: string;
	oldMode: string;
	/** The blob (or commit, for a submodule) the path holds afterwards. */
	newId: string;
}

/** What differs between two trees, file by file (renames as a deletion plus an addition). */
export async function treeChanges(root: string, from: string, to: string, signal?: AbortSignal): Promise<TreeChange[]> {
	const raw = await gitOk(["diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-abbrev", from, to], {
		cwd: root,
		signal,
		timeoutMs: SLOW_GIT_MS,
	});
	const fields = raw.split("\0");
	const changes: TreeChange[] = [];
	// Each entry is ":<old mode> <new mode> <old id> <new id> <status>" NUL "<path>" NUL.
	for (let i = 0; i + 1 < fields.length; i += 2) {
		const [oldMode, newMode, , newId, status] = fields[i].replace(/^:/, "").split(" ");
		if (status) changes.push({ status, path: fields[i + 1], newMode, oldMode, newId });
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
		const base = await commitTree(
			root,
			tree,
			await headCommit(root, signal),
			"pi-watchdog: the parent's state for a child worktree",
			signal,
		);
		mkdirSync(dirname(target), { recursive: true });
		let added: Awaited<ReturnType<typeof runGit>>;
		try {
			added = await runGit(["worktree", "add", "--detach", "--quiet", target, base], {
				cwd: root,
				signal,
				timeoutMs: SLOW_GIT_MS,
			});
		} catch (error) {
			// Killed halfway (deadline or abort): do not leave a half-made worktree registered.
			await removeWorktree({ root, dir: target, base });
			throw error;
		}
		if (added.code !== 0)
			throw new Error(
				`cannot create a worktree at ${target}: ${oneLine(added.stderr) || `git exit code ${added.code}`}`,
			);
		return { root, dir: target, base };
	});
}

/**
 * Writes the change from `from` to `to` (commits or trees), `only` these paths when given, as a patch `git
 * apply` takes.
 */
export async function writePatch(root: string, from: string, to: string, path: string, only?: string[]): Promise<void> {
	mkdirSync(dirname(path), { recursive: true });
	const args = [
		"--literal-pathspecs",
		"diff",
		"--binary",
		"--full-index",
		"--no-color",
		"--no-ext-diff",
		"--no-textconv",
		"--no-renames",
		"--src-prefix=a/",
		"--dst-prefix=b/",
		`--output=${path}`,
		from,
		to,
	];
	await gitOk(only ? [...args, "--", ...only] : args, { cwd: root, timeoutMs: SLOW_GIT_MS });
	if (!existsSync(path)) throw new Error(`git wrote no patch at ${path}`);
}

/** Removes the worktree folder and git's record of it; never throws. */
export async function removeWorktree(wt: ChildWorktree): Promise<void> {
	try {
		// Twice --force: also a locked worktree, and one with changes (it is ours to drop).
		await runGit(["worktree", "remove", "--force", "--force", wt.dir], { cwd: wt.root, timeoutMs: SLOW_GIT_MS });
	} catch {}
	try {
		// git refused (e.g. the record was already pruned): drop the folder if it is a worktree's.
		if (existsSync(wt.dir) && lstatSync(join(wt.dir, ".git")).isFile())
			rmSync(wt.dir, { recursive: true, force: true });
	} catch {}
	try {
		await runGit(["worktree", "prune"], { cwd: wt.root });
	} catch {}
}

/**
 * Saves what a dead run's worktree holds beyond the snapshot it was made from (the oldest entry
 * of its HEAD log) as `worktree-<name>.patch` in its run folder. True when nothing is left to lose.
 */
async function savedStale(root: string, dir: string): Promise<boolean> {
	if (!existsSync(dir)) return true;
	try {
		const log = await runGit(["log", "-g", "--format=%H", "HEAD"], { cwd: dir });
		const base =
			log.stdout.trim().split("\n").at(-1) ||
			(await gitOk(["rev-parse", "--verify", "HEAD^{commit}"], { cwd: dir })).trim();
		const tree = await snapshotTree(dir);
		if (tree === (await treeOf(root, base))) return true;
		await writePatch(root, base, tree, join(dirname(dirname(dir)), `worktree-${basename(dir)}.patch`));
		return true;
	} catch {
		return false;
	}
}

function isInside(path: string, folder: string): boolean {
	const rel = relative(folder, path);
	return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/**
 * Removes the worktrees registered in the repository at `cwd` that live under `runsDir` and
 * whose run is not alive, then prunes git's records. Returns the folders removed.
 */
export async function cleanStaleWorktrees(
	cwd: string,
	runsDir: string,
	isAlive: (worktreeDir: string) => boolean,
): Promise<string[]> {
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
			// What the dead run's child wrote is kept as a patch first; a worktree whose change could not be saved stays.
			if (!(await savedStale(root, dir))) continue;
			await removeWorktree({ root, dir, base: "" });
			removed.push(dir);
		}
	} catch {}
	try {
		await runGit(["worktree", "prune"], { cwd: root });
	} catch {}
	return removed;
}
