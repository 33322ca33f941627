// Git worktrees as a launch uses them (launch.ts knows only the WorktreeOps shape).
import { mkdirSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";
import type { WorktreeOps } from "./launch.ts";
import { type ChildWorktree, cleanStaleWorktrees, createWorktree, landWorktree, removeWorktree } from "../git/index.ts";

export const gitWorktrees: WorktreeOps = {
	create: async (cwd, dir, signal) => {
		const wt = await createWorktree(cwd, dir, signal);
		// A child launched in a subfolder of the repository (the parent's, or its cwd) starts in the same subfolder.
		let inside = "";
		try {
			inside = relative(realpathSync(wt.root), realpathSync(cwd));
		} catch {
			// keep the worktree's top
		}
		const workDir = inside && !inside.startsWith("..") ? join(wt.dir, inside) : wt.dir;
		// A folder with no file git knows (empty in the parent) is not in the snapshot: make it, as it is there.
		mkdirSync(workDir, { recursive: true });
		return { ...wt, workDir };
	},
	land: (wt, patchDir, name, signal) => landWorktree(wt as ChildWorktree, patchDir, name, signal),
	remove: (wt) => removeWorktree(wt as ChildWorktree),
	cleanStale: cleanStaleWorktrees,
};
