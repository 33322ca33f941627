// Worktrees as the launch uses them (placeholder until the git worktree module lands).
import type { WorktreeOps } from "./launch.ts";

export const gitWorktrees: WorktreeOps = {
	create: async () => {
		throw new Error("worktrees are not available");
	},
	land: async () => ({ status: "unchanged", paths: [] }),
	remove: async () => {},
};
