// Git worktrees as a launch uses them (launch.ts knows only the WorktreeOps shape).
import type { WorktreeOps } from "./launch.ts";
import { type ChildWorktree, cleanStaleWorktrees, createWorktree, landWorktree, removeWorktree } from "./worktree.ts";

export const gitWorktrees: WorktreeOps = {
	create: (cwd, dir, signal) => createWorktree(cwd, dir, signal),
	land: (wt, patchDir, name, signal) => landWorktree(wt as ChildWorktree, patchDir, name, signal),
	remove: (wt) => removeWorktree(wt as ChildWorktree),
	cleanStale: cleanStaleWorktrees,
};
