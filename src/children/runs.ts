// Run folders: `<agentDir>/watchdog/runs/<id>/` holds a launch's state as files, so a run
// outlives the turn (background) or the parent (partial results after a crash). Every write is
// atomic (a temp file renamed over the old one): a reader never sees half a file. Reads are
// bounded and never follow links.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processAlive, readJsonObject } from "../util/index.ts";

export type RunState = "running" | "done" | "failed" | "stopped" | "lost";

/** `status.json`: what a reader needs while the run goes on. */
export interface RunStatus {
	id: string;
	state: RunState;
	mode: string;
	/** The runner's process id (background runs), to tell a live run from a lost one. */
	pid?: number;
	startedAt: string;
	updatedAt: string;
	children: Array<{
		label: string;
		agent: string;
		status: string;
		tool?: string;
		toolCount: number;
		tokens: number;
		cost: number;
	}>;
	/** The parent session that launched it (a background runner's completion goes there). */
	parentSession?: string;
	error?: string;
}

const MAX_READ = 4 * 1024 * 1024;

/**
 * Writes one run's `status.json` as it goes, the same way for a foreground launch, a background
 * launch and its runner: `rows` says where each child is. A write that fails costs the on-disk
 * copy, never the run.
 */
export function statusWriter(
	dir: string,
	run: { id: string; mode: string; pid?: number; parentSession?: string },
	rows: () => RunStatus["children"],
): (state: RunState, error?: string) => void {
	const startedAt = new Date().toISOString();
	return (state, error) => {
		const status: RunStatus = {
			id: run.id,
			state,
			mode: run.mode,
			...(run.pid !== undefined ? { pid: run.pid } : {}),
			startedAt,
			updatedAt: new Date().toISOString(),
			children: rows(),
			...(run.parentSession ? { parentSession: run.parentSession } : {}),
			...(error ? { error } : {}),
		};
		try {
			writeJsonAtomic(join(dir, "status.json"), status);
		} catch {
			// the folder is unwritable or gone
		}
	};
}

export function runsDir(agentDir: string): string {
	return join(agentDir, "watchdog", "runs");
}

export function runDir(agentDir: string, id: string): string {
	return join(runsDir(agentDir), id);
}

/** A short id that sorts by time: `20261201-101502-a3f9c1`. */
export function newRunId(now = new Date()): string {
	const p = (n: number) => String(n).padStart(2, "0");
	const stamp =
		`${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}` +
		`${p(now.getUTCDate())}-${p(now.getUTCHours())}` +
		`${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
	return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/** Ids are ours: anything else (a path, `..`) is refused before it reaches the file system. */
export function isRunId(id: string): boolean {
	return /^\d{8}-\d{6}-[0-9a-f]{6}$/.test(id);
}

export function writeJsonAtomic(path: string, data: unknown): void {
	const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
	writeFileSync(temp, `${JSON.stringify(data, null, 1)}\n`, { encoding: "utf8", mode: 0o600 });
	renameSync(temp, path);
}

export function readRunJson(dir: string, name: string): Record<string, unknown> | undefined {
	return readJsonObject(join(dir, name), dir, MAX_READ);
}

export function makeRunDir(agentDir: string, id: string): string {
	const dir = runDir(agentDir, id);
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	return dir;
}

export function readStatus(agentDir: string, id: string): RunStatus | undefined {
	return readRunJson(runDir(agentDir, id), "status.json") as RunStatus | undefined;
}

/** Run ids, newest first. */
export function listRuns(agentDir: string): string[] {
	try {
		return readdirSync(runsDir(agentDir)).filter(isRunId).sort().reverse();
	} catch {
		return [];
	}
}

/** Background runs of this agent folder whose runner is alive (a foreground run has no spec.json), newest first. */
export function runningBackground(agentDir: string): string[] {
	return listRuns(agentDir).filter((id) => {
		const status = readStatus(agentDir, id);
		return (
			status?.state === "running" && existsSync(join(runDir(agentDir, id), "spec.json")) && processAlive(status.pid)
		);
	});
}

/** The one liveness check (util/process.ts), where the children's code looks for it. */
export { processAlive };

export function removeRunWorktrees(dir: string): void {
	rmSync(join(dir, "worktrees"), { recursive: true, force: true });
}
