// Landing a child's worktree in the parent's tree: the child's change (its files vs the snapshot
// it started from) merged three-way with the parent's files as they are now, written through a
// private index. What cannot land whole is kept as a patch that exists, and nothing is written:
// a merge conflict, a file of the user's that git does not track where the child writes (an
// ignored `.env`), a link that points out of the repository, a landing cut short before it wrote.
// Once writing starts it runs to its end (each git call has its own deadline); if it still fails
// partway, the patch holds what of the change is not in the tree.
import { existsSync, lstatSync, readdirSync, rmdirSync, rmSync, type Stats } from "node:fs";
import { dirname, isAbsolute, join, posix, relative, resolve } from "node:path";
import { oneLine } from "../util/index.ts";
import { gitOk, runGit, SLOW_GIT_MS } from "./git-process.ts";
import {
	type ChildWorktree,
	commitTree,
	oneAtATime,
	snapshotTree,
	type TreeChange,
	treeChanges,
	treeOf,
	withPrivateIndex,
	writePatch,
} from "./worktree.ts";

export interface LandResult {
	/** applied: the child's changes are in the parent's files; conflict: they are in the patch instead. */
	status: "applied" | "conflict" | "unchanged";
	/** Repo-relative paths the child changed (added, modified, deleted), sorted. */
	paths: string[];
	/**
	 * On conflict: the paths that could not land (both sides changed them, a file of the user's is there, a link
	 * leaves).
	 */
	conflicts?: string[];
	/** On conflict, unless it is a plain merge conflict: why the change did not land. */
	reason?: string;
	/** On conflict: the child's change (or what of it is not in the tree) as a binary-safe patch. */
	patchPath?: string;
}

/** How often a landing re-merges when the parent's files change under it. */
const LAND_ATTEMPTS = 3;
const GITLINK = "160000";
const SYMLINK = "120000";

type Decision =
	| { write: { merged: string; changes: TreeChange[] } }
	| { keep: { conflicts: string[]; reason?: string } };

/**
 * Applies the child's changes (its worktree's files vs its base, ignored files excluded) to the
 * parent's working tree, merged three-way with the parent's files as they are now. When they
 * cannot land, nothing in the parent changes and the child's patch is kept under `patchDir`.
 * `signal` cancels the landing only before it starts writing; the patch is written whatever it
 * says. Throws only when the change could be neither landed nor saved (the worktree still has it).
 */
export async function landWorktree(
	wt: ChildWorktree,
	patchDir: string,
	name: string,
	signal?: AbortSignal,
): Promise<LandResult> {
	if (!existsSync(wt.dir)) throw new Error("the child's worktree is gone");
	return oneAtATime(wt.root, async () => {
		// The child's state is read without the signal: it is what a kept patch is made from.
		const baseTree = await treeOf(wt.root, wt.base);
		const childTree = await snapshotTree(wt.dir);
		if (childTree === baseTree) return { status: "unchanged", paths: [] };
		const child = await commitTree(wt.root, childTree, wt.base, "pi-watchdog: a child's work");
		const own = await treeChanges(wt.root, baseTree, childTree);
		const paths = [...new Set(own.map((c) => c.path))].sort();
		const patchPath = join(resolve(patchDir), patchFileName(name));
		const keep = async (conflicts: string[], reason?: string, from = wt.base, to = child, only?: string[]) => {
			await writePatch(wt.root, from, to, patchPath, only);
			return { status: "conflict", paths, conflicts, ...(reason ? { reason } : {}), patchPath } satisfies LandResult;
		};
		let decision: Decision;
		try {
			decision = await decide(wt, child, own, signal);
		} catch (error) {
			const reason = `the landing did not finish (${oneLine(message(error))}); nothing was written`;
			decision = { keep: { conflicts: [], reason } };
		}
		if ("keep" in decision) return keep(decision.keep.conflicts, decision.keep.reason);
		const { merged, changes } = decision.write;
		try {
			await writeMerged(wt.root, merged, changes);
			return { status: "applied", paths };
		} catch (error) {
			// Part may be written: the patch takes the tree from what it holds now to the merged result.
			const now = await snapshotTree(wt.root);
			const why = oneLine(message(error));
			const reason = `the landing stopped partway (${why}); what of the change is not in your tree is in the patch`;
			return keep([], reason, now, merged, [...new Set(changes.map((c) => c.path))]);
		}
	});
}

/** Whether the child's change may be written, and what to write: merged against the parent's files as they are now. */
async function decide(wt: ChildWorktree, child: string, own: TreeChange[], signal?: AbortSignal): Promise<Decision> {
	const leaving = await linksLeaving(wt.root, own, signal);
	if (leaving.length) {
		const links = leaving.map((l) => `${l.path} → ${l.target}`).join(", ");
		return {
			keep: {
				conflicts: leaving.map((l) => l.path),
				reason: `it adds links that point outside the repository: ${links}`,
			},
		};
	}
	let parentTree = await snapshotTree(wt.root, signal);
	for (let attempt = 1; ; attempt++) {
		const parent = await commitTree(wt.root, parentTree, wt.base, "pi-watchdog: the parent's state at landing", signal);
		const merge = await mergeCommits(wt.root, parent, child, signal);
		if (merge.conflicts.length > 0) return { keep: { conflicts: merge.conflicts } };
		const changes = await treeChanges(wt.root, parentTree, merge.tree, signal);
		const blocked = inTheWay(wt.root, changes);
		if (blocked.length) {
			const paths = blocked.join(", ");
			const reason = `files of yours that git does not track (ignored or new) are where it writes: ${paths}`;
			return { keep: { conflicts: blocked, reason } };
		}
		// The parent's agent may be editing while a child lands: write only when none of the
		// files about to be written changed since the snapshot the merge was made against.
		const now = await snapshotTree(wt.root, signal);
		const moved = now === parentTree ? [] : (await treeChanges(wt.root, parentTree, now, signal)).map((c) => c.path);
		const writing = new Set(changes.map((c) => c.path));
		const clash = moved.filter((p) => writing.has(p));
		if (clash.length === 0) return { write: { merged: merge.tree, changes } };
		if (attempt >= LAND_ATTEMPTS) {
			const reason = `your files kept changing while it landed (${clash.slice(0, 5).join(", ")}); nothing was written`;
			return { keep: { conflicts: clash, reason } };
		}
		parentTree = now;
	}
}

/** Three-way merge of two commits sharing the base snapshot as parent; nothing is written to any work tree. */
async function mergeCommits(
	root: string,
	ours: string,
	theirs: string,
	signal?: AbortSignal,
): Promise<{ tree: string; conflicts: string[] }> {
	const run = await runGit(["merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", ours, theirs], {
		cwd: root,
		signal,
		timeoutMs: SLOW_GIT_MS,
	});
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

/** The links the child added or changed whose target, read from its folder, leaves the repository or enters `.git`. */
async function linksLeaving(root: string, own: TreeChange[], signal?: AbortSignal) {
	const out: Array<{ path: string; target: string }> = [];
	for (const change of own) {
		if (change.status === "D" || change.newMode !== SYMLINK) continue;
		const target = await gitOk(["cat-file", "blob", change.newId], { cwd: root, signal });
		if (leavesRepository(root, change.path, target)) out.push({ path: change.path, target });
	}
	return out;
}

function leavesRepository(root: string, path: string, target: string): boolean {
	if (target === "" || target.includes("\0")) return true;
	const inside = isAbsolute(target)
		? relative(root, target).split("\\").join("/")
		: posix.normalize(posix.join(posix.dirname(path), target));
	const first = inside.split("/")[0].toLowerCase();
	return isAbsolute(inside) || first === ".." || first === ".git";
}

function lstatOf(path: string): Stats | undefined {
	try {
		return lstatSync(path);
	} catch {
		return undefined;
	}
}

/**
 * The paths the landing would write over something of the user's that the merge does not know:
 * a new path where an ignored (or just created) file or folder is, or a path below a file or
 * link of the user's that is not part of the change.
 */
function inTheWay(root: string, changes: TreeChange[]): string[] {
	const replaced = new Set(changes.filter((c) => c.status === "D" || c.status === "T").map((c) => c.path));
	const found = new Set<string>();
	for (const change of changes) {
		if (change.status === "D" || change.newMode === GITLINK || change.oldMode === GITLINK) continue;
		if (change.status === "A" && lstatOf(join(root, change.path))) found.add(change.path);
		for (let folder = posix.dirname(change.path); folder !== "."; folder = posix.dirname(folder)) {
			const stats = lstatOf(join(root, folder));
			if (stats && !stats.isDirectory() && !replaced.has(folder)) found.add(change.path);
		}
	}
	return [...found].sort();
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
	for (
		let folder = dirname(full);
		folder !== root && !relative(root, folder).startsWith("..");
		folder = dirname(folder)
	) {
		try {
			if (readdirSync(folder).length > 0) break;
			rmdirSync(folder);
		} catch {
			break;
		}
	}
}

/** Makes the parent's files for `changes` (from its snapshot to the merged tree) what the merged tree holds. */
async function writeMerged(root: string, merged: string, changes: TreeChange[]): Promise<void> {
	const files = changes.filter((c) => c.newMode !== GITLINK && c.oldMode !== GITLINK);
	for (const change of files) if (change.status === "D" || change.status === "T") removeFile(root, change.path);
	const writes = files.filter((c) => c.status !== "D").map((c) => c.path);
	if (writes.length === 0) return;
	await withPrivateIndex(async (env) => {
		await gitOk(["read-tree", merged], { cwd: root, env, timeoutMs: SLOW_GIT_MS });
		// checkout-index writes through git's own checkout (filters, modes, symlinks, binary).
		await gitOk(["checkout-index", "--force", "-z", "--stdin"], {
			cwd: root,
			env,
			input: `${writes.join("\0")}\0`,
			timeoutMs: SLOW_GIT_MS,
		});
	});
}

function patchFileName(name: string): string {
	const safe = name
		.replace(/[^\p{L}\p{N}._-]+/gu, "_")
		.replace(/^[.]+/, "")
		.slice(0, 100);
	return `${safe || "child"}.patch`;
}

function message(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
