// Where a launch's children work. A `cwd` is resolved against the parent's folder (never the
// process's: a background runner starts in its run folder) and checked before anything
// starts: it must exist and, when the parent is in a git repository, stay inside that
// repository, since a writer's worktree is made from it and lands back into it. A writer that
// gets a worktree works in the worktree's matching subfolder, so a folder git ignores (absent
// from the worktree) is refused for it. Outside any repository there are no worktrees: a cwd
// only has to exist, and writers work there directly (the launch's result says so).
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { ignoredByGit, repositoryTop } from "../git/index.ts";
import type { ChildAgent } from "./child-session.ts";
import { mayWrite } from "./launch.ts";
import type { LaunchPlan } from "./launch-plan.ts";

/** The plan with every step's `cwd` made absolute; throws (nothing started) on one that cannot be. */
export async function resolveLaunchCwds(
	plan: LaunchPlan,
	parentCwd: string,
	agents: ChildAgent[],
	signal?: AbortSignal,
): Promise<LaunchPlan> {
	if (!plan.steps.some((s) => s.cwd !== undefined)) return plan;
	const root = await repositoryTop(parentCwd, signal);
	// Worktrees are made for writers of a background run and of parallel tasks.
	const worktrees = plan.async || plan.mode === "parallel";
	const steps = [];
	for (const [i, step] of plan.steps.entries()) {
		if (step.cwd === undefined) {
			steps.push(step);
			continue;
		}
		const where = plan.steps.length > 1 ? `step ${i + 1}: ` : "";
		const fail = (why: string) => new Error(`${where}cwd "${step.cwd}" ${why}`);
		if (!step.cwd.trim()) throw fail("is empty: leave cwd out to work in this session's folder");
		const absolute = resolve(parentCwd, step.cwd);
		let isFolder: boolean;
		try {
			isFolder = statSync(absolute).isDirectory();
		} catch {
			throw fail(`does not exist (looked for ${absolute}; a relative cwd is taken from this session's folder)`);
		}
		if (!isFolder) throw fail(`is not a folder (${absolute})`);
		if (root) {
			const inside = relative(root, realpathSync(absolute));
			if (inside.startsWith("..") || isAbsolute(inside)) {
				throw fail(
					`is ${absolute}, outside this session's repository ${root}: a child works inside the repository it is ` +
						"launched from (a writer gets a worktree of it and its changes land there); for " +
						"another folder, start Pi there",
				);
			}
			const own = inside ? await repositoryTop(absolute, signal) : root;
			if (own !== root) {
				throw fail(
					`is inside another git repository (${own}), not this session's (${root}); start Pi there to work on it`,
				);
			}
			if (inside && worktrees && mayWrite(agents[i]) && (await ignoredByGit(root, inside, signal))) {
				throw fail(
					"is ignored by git, so the worktree a writer gets has no such folder; give a folder git tracks, " +
						"or run the child in the foreground alone",
				);
			}
		}
		steps.push({ ...step, cwd: absolute });
	}
	return { ...plan, steps };
}
