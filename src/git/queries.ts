// Two questions a launch asks git about a folder: the work tree's top, and whether a path is
// ignored (a child's folder that git ignores would be missing from its worktree).
import { realpathSync } from "node:fs";
import { runGit } from "./git-process.ts";

/** The repository's top folder (symbolic links resolved), or undefined outside any repository. */
export async function repositoryTop(cwd: string, signal?: AbortSignal): Promise<string | undefined> {
	const run = await runGit(["rev-parse", "--show-toplevel"], { cwd, signal });
	const top = run.stdout.trim();
	if (run.code !== 0 || !top) return undefined;
	try {
		return realpathSync(top);
	} catch {
		return top;
	}
}

/** Whether git ignores `path` (relative to the work tree `root`). */
export async function ignoredByGit(root: string, path: string, signal?: AbortSignal): Promise<boolean> {
	return (await runGit(["check-ignore", "-q", "--", path], { cwd: root, signal })).code === 0;
}
