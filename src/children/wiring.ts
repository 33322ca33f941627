// What the `subagent` tool needs from the host, put together once per session: the agent
// files (a project's only with a trust decision, since they carry prompts and extensions),
// git worktrees, and the run folders left by a session that crashed.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ProjectTrust } from "../host/index.ts";
import { loadAgents } from "./agents.ts";
import type { WorktreeOps } from "./launch.ts";
import type { ChildWatchdogOptions, LauncherDeps } from "./launcher.ts";
import { gitWorktrees } from "./worktree-ops.ts";
import { listRuns, processAlive, readStatus, runDir, runsDir, type RunStatus, writeJsonAtomic } from "./runs.ts";
import { readdirSync, rmSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";

/** Run folders kept (newest first); older ones are removed at session start. */
export const KEPT_RUNS = 100;

export interface LauncherHost {
	agentDir: string;
	configDirName: string;
	childWatchdog(options: ChildWatchdogOptions): ExtensionFactory;
}

export function launcherDeps(host: LauncherHost): Omit<LauncherDeps, "watchdog"> {
	return {
		agentDir: host.agentDir,
		// A project's agents only under a trust decision, and only as they were when it was taken.
		agents: (ctx: ExtensionContext, trust: ProjectTrust) =>
			loadAgents({
				agentDir: host.agentDir,
				cwd: ctx.cwd,
				configDirName: host.configDirName,
				projectTrusted: trust.decided,
				trust,
			}),
		childWatchdog: host.childWatchdog,
		worktrees: gitWorktrees,
	};
}

/**
 * At session start: runs whose process is gone without a result are `lost`, and worktrees of
 * runs that are no longer alive (a crash of the parent or the runner) are removed.
 */
export async function cleanStaleRuns(
	agentDir: string,
	cwd: string,
	worktrees: WorktreeOps = gitWorktrees,
): Promise<void> {
	const alive = new Set<string>();
	// Git is asked only when a run left a worktree behind: a session start otherwise starts no git process.
	let worktreesLeft = false;
	for (const [n, id] of listRuns(agentDir).entries()) {
		const status = readStatus(agentDir, id);
		const running = status?.state === "running" && processAlive(status.pid);
		if (!running && holdsWorktree(runDir(agentDir, id))) worktreesLeft = true;
		// Old runs go, so the folder (and this walk) stays bounded; a live one is never removed.
		if (n >= KEPT_RUNS && !running) {
			rmSync(runDir(agentDir, id), { recursive: true, force: true });
			continue;
		}
		if (status?.state !== "running") continue;
		if (running) alive.add(id);
		else
			writeJsonAtomic(join(runDir(agentDir, id), "status.json"), {
				...status,
				state: "lost",
				updatedAt: new Date().toISOString(),
				error: "its process ended without a result",
			} satisfies RunStatus);
	}
	if (!worktreesLeft) return;
	const root = runsDir(agentDir);
	await worktrees.cleanStale?.(cwd, root, (dir) => alive.has(relative(root, dir).split(sep)[0] ?? ""));
}

/** Whether a run folder still holds a worktree (a launch's are removed when it ends, leaving the folder empty). */
function holdsWorktree(dir: string): boolean {
	try {
		return readdirSync(join(dir, "worktrees")).length > 0;
	} catch {
		return false;
	}
}
