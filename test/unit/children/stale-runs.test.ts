// Session start: runs whose process died without a result are marked lost, and old run
// folders are removed beyond the newest KEPT_RUNS (a live run never is).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KEPT_RUNS, cleanStaleRuns } from "../../../src/children/wiring.ts";
import { tempDir } from "../../support/temp.ts";

const write = (agentDir: string, id: string, status: Record<string, unknown>) => {
	const dir = join(agentDir, "watchdog", "runs", id);
	mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(dir, "status.json"),
		JSON.stringify({ id, mode: "single", startedAt: "", updatedAt: "", children: [], ...status }),
	);
};
const id = (n: number) => `20260101-${String(n).padStart(6, "0")}-abcdef`;

describe("cleanStaleRuns", () => {
	it("marks a dead running run lost, keeps the newest runs and a live one, and removes the rest", async () => {
		const agentDir = tempDir("pi-watchdog-agent-");
		for (let n = 0; n < KEPT_RUNS + 5; n++) write(agentDir, id(n), { state: "done" });
		write(agentDir, id(1), { state: "running", pid: process.pid }); // old but alive
		write(agentDir, id(KEPT_RUNS + 4), { state: "running", pid: 2 ** 22 + 12345 }); // newest, its process gone
		await cleanStaleRuns(agentDir, tempDir("pi-watchdog-cwd-"));
		const left = readdirSync(join(agentDir, "watchdog", "runs"));
		expect(left).toHaveLength(KEPT_RUNS + 1);
		expect(left).toContain(id(1));
		expect(existsSync(join(agentDir, "watchdog", "runs", id(0)))).toBe(false);
		const lost = JSON.parse(readFileSync(join(agentDir, "watchdog", "runs", id(KEPT_RUNS + 4), "status.json"), "utf8"));
		expect(lost.state).toBe("lost");
	});
});

describe("cleanStaleRuns and git", () => {
	// Recorded calls of the worktree cleaner (the one step that starts git): a session start with
	// no worktree of ours left behind must start no git process (a read-only session runs none).
	const recorder = () => {
		const calls: string[] = [];
		const ops = {
			create: () => Promise.reject(new Error("not used")),
			land: () => Promise.reject(new Error("not used")),
			remove: () => Promise.resolve(),
			cleanStale: (cwd: string) => {
				calls.push(cwd);
				return Promise.resolve([]);
			},
		};
		return { calls, ops };
	};

	it("leaves git alone when no run folder holds a worktree", async () => {
		const agentDir = tempDir("pi-watchdog-agent-");
		const { calls, ops } = recorder();
		await cleanStaleRuns(agentDir, tempDir("pi-watchdog-cwd-"), ops);
		write(agentDir, id(1), { state: "done" });
		mkdirSync(join(agentDir, "watchdog", "runs", id(1), "worktrees")); // emptied by the run's own cleanup
		write(agentDir, id(2), { state: "running", pid: 2 ** 22 + 12345 });
		await cleanStaleRuns(agentDir, tempDir("pi-watchdog-cwd-"), ops);
		expect(calls).toEqual([]);
	});

	it("asks git to clean when a dead run left a worktree, or an old run folder with one is removed", async () => {
		const agentDir = tempDir("pi-watchdog-agent-");
		const { calls, ops } = recorder();
		write(agentDir, id(1), { state: "running", pid: 2 ** 22 + 12345 });
		mkdirSync(join(agentDir, "watchdog", "runs", id(1), "worktrees", "1"), { recursive: true });
		await cleanStaleRuns(agentDir, "/cwd-a", ops);
		expect(calls).toEqual(["/cwd-a"]);

		const old = tempDir("pi-watchdog-agent-");
		for (let n = 0; n < KEPT_RUNS + 1; n++) write(old, id(n), { state: "done" });
		mkdirSync(join(old, "watchdog", "runs", id(0), "worktrees", "1"), { recursive: true });
		await cleanStaleRuns(old, "/cwd-b", ops);
		expect(calls).toEqual(["/cwd-a", "/cwd-b"]);
		expect(existsSync(join(old, "watchdog", "runs", id(0)))).toBe(false);
	});
});
