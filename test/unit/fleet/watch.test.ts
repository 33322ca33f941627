// One watcher per agent dir: a second is told who holds the lock; a dead holder's lock is taken
// over; the loop never runs two passes at once; the printed systemd unit runs the watcher.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDuration, parseFleetArgs } from "../../../src/fleet/command.ts";
import { lockPath, systemdUnit, takeWatchLock, watchLoop } from "../../../src/fleet/watch.ts";
import { tempDir } from "../../support/temp.ts";

describe("fleet --watch", () => {
	it("lets one watcher hold the lock and names it to a second", () => {
		const agentDir = tempDir("fleet-watch-");
		const first = takeWatchLock(agentDir);
		expect(first.ok).toBe(true);
		const second = takeWatchLock(agentDir);
		expect(second).toMatchObject({ ok: false, holder: expect.stringContaining(`process ${process.pid}`) });
		if (first.ok) first.release();
		const again = takeWatchLock(agentDir);
		expect(again.ok).toBe(true);
		if (again.ok) again.release();
	});

	it("takes over the lock of a watcher that died", () => {
		const agentDir = tempDir("fleet-watch-");
		mkdirSync(join(agentDir, "watchdog"), { recursive: true });
		writeFileSync(lockPath(agentDir), JSON.stringify({ pid: 999_999_999, host: "h", startedAt: "then" }));
		const taken = takeWatchLock(agentDir);
		expect(taken.ok).toBe(true);
		if (taken.ok) taken.release();
	});

	it("runs passes one after another until stopped", async () => {
		const stop = new AbortController();
		let running = 0;
		let most = 0;
		let passes = 0;
		await watchLoop(
			async () => {
				running++;
				most = Math.max(most, running);
				await new Promise((r) => setTimeout(r, 5));
				running--;
				if (++passes === 3) stop.abort();
			},
			1,
			stop.signal,
		);
		expect(passes).toBe(3);
		expect(most).toBe(1);
	});

	it("prints a systemd user unit that runs the watcher with --nudge", () => {
		const unit = systemdUnit("/usr/bin/node", "/pkg/bin/pi-watchdog.mjs", { PI_CODING_AGENT_DIR: "/a" }, "180s");
		expect(unit).toContain("ExecStart=/usr/bin/node /pkg/bin/pi-watchdog.mjs fleet --watch --nudge --every 180s");
		expect(unit).toContain("Environment=PI_CODING_AGENT_DIR=/a");
		expect(unit).toContain("WantedBy=default.target");
	});

	it("parses durations and refuses bad options with a reason", () => {
		expect(parseDuration("3m")).toBe(180_000);
		expect(parseDuration("24h")).toBe(86_400_000);
		expect(parseDuration("0")).toBe(0);
		expect(parseDuration("soon")).toBeUndefined();
		expect(parseFleetArgs(["--stall", "soon"])).toContain("--stall needs a duration");
		expect(parseFleetArgs(["--every", "1m"])).toBe("--every goes with --watch");
		expect(parseFleetArgs(["--watch", "--every=1m", "--nudge"])).toMatchObject({
			watch: true,
			everyMs: 60_000,
			nudge: true,
		});
		expect(parseFleetArgs(["policy", "abc", "handsoff"])).toMatchObject({ policy: { id: "abc", policy: "handsoff" } });
	});
});
