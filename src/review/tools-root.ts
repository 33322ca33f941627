// Where a reviewer's (or the verifier's) tools may look when a child is being judged: the
// parent's project, never wherever a launch pointed the child. The project is the parent
// session's repository (or its folder when it has none); a child folder counts when it is
// inside it or is a worktree of the same repository (the child's own worktree).
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { findRepo } from "../git/index.ts";

export interface ToolsRoot {
	root: string;
	/** Said to the user and the model when the child's folder was not allowed. */
	note?: string;
}

function real(path: string): string {
	try {
		return realpathSync.native(path);
	} catch {
		return resolve(path);
	}
}

function inside(root: string, path: string): boolean {
	const rel = relative(real(root), real(path));
	return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The project's root: the repository around the parent's folder, else that folder. */
export function projectRoot(project: string): string {
	return findRepo(project)?.root ?? resolve(project);
}

/** The root for tools looking at work done in `cwd` for the parent whose folder is `project`. */
export function toolsRootFor(cwd: string, project: string): ToolsRoot {
	const top = projectRoot(project);
	const own = findRepo(cwd);
	const parentRepo = findRepo(project);
	// The child's worktree: another work tree of the parent's repository.
	if (own && parentRepo && real(own.commonDir) === real(parentRepo.commonDir)) return { root: own.root };
	if (inside(top, cwd)) return { root: own && inside(top, own.root) ? own.root : resolve(cwd) };
	const note = `The child's folder ${resolve(cwd)} is outside this project (${top}); the tools look only in ${top}.`;
	return { root: top, note };
}
