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
