// One pass over real files in a temp agent dir: Pi sessions, a Claude Code log, a child run, a
// live entry, and the bad input a pass must pass over (corrupt, FIFO, link out, huge) with the
// reason, always finishing. (Integration: it makes a FIFO with mkfifo.)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { liveRegistration } from "../../../src/fleet/live.ts";
import { runPass } from "../../../src/fleet/pass.ts";
import { passText } from "../../../src/fleet/view.ts";
import { tempDir } from "../../support/temp.ts";

const MIN = 60_000;
const TIMES = { stallMs: 3 * MIN, dormantMs: 24 * 60 * MIN };

function piSession(id: string, cwd: string, turns: Array<["user" | "assistant", string]>): string {
	const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-12-01T10:00:00Z", cwd })];
	lines.push(JSON.stringify({ type: "model_change", id: "m", parentId: null, provider: "local", modelId: "main" }));
	turns.forEach(([role, text], i) => {
		const message =
			role === "user"
				? { role, content: [{ type: "text", text }] }
				: { role, content: [{ type: "text", text }], stopReason: "stop" };
		lines.push(JSON.stringify({ type: "message", id: `e${i}`, parentId: null, message }));
	});
	return `${lines.join("\n")}\n`;
}

function write(path: string, text: string, ageMs: number): void {
	mkdirSync(join(path, ".."), { recursive: true });
	writeFileSync(path, text);
	const t = (Date.now() - ageMs) / 1000;
	utimesSync(path, t, t);
}

describe("runPass", () => {
	it("states every session, passes over bad files with the reason, and finishes", () => {
		const agentDir = tempDir("fleet-agent-");
		const claude = tempDir("fleet-claude-");
		const outside = tempDir("fleet-outside-");
		const sessions = join(agentDir, "sessions", "--w--");
		write(
			join(sessions, "a_idle.jsonl"),
			piSession("idle-1", "/w", [
				["user", "Fix the parser"],
				["assistant", "Found it. Let me run the tests now."],
			]),
			10 * MIN,
		);
		write(
			join(sessions, "b_done.jsonl"),
			piSession("done-1", "/w", [
				["user", "Say hi"],
				["assistant", "Hi! The task is complete."],
			]),
			10 * MIN,
		);
		write(join(sessions, "c_old.jsonl"), piSession("old-1", "/w", [["user", "old"]]), 3 * 24 * 60 * MIN);
		write(join(sessions, "d_corrupt.jsonl"), "not json at all\n\u0000\u0001garbage\n", 10 * MIN);
		// Huge: the tail is all that is read.
		const big = piSession("big-1", "/w", [["user", "Summarise the logs"]]) + `${"x".repeat(200)}\n`.repeat(30_000);
		write(
			join(sessions, "e_big.jsonl"),
			`${big}${piSession("big-1", "/w", [["assistant", "Summary written; done."]])
				.split("\n")
				.slice(2)
				.join("\n")}`,
			10 * MIN,
		);
		execFileSync("mkfifo", [join(sessions, "f_fifo.jsonl")]);
		write(join(outside, "secret.jsonl"), piSession("out-1", "/x", [["user", "outside"]]), 10 * MIN);
		symlinkSync(join(outside, "secret.jsonl"), join(sessions, "g_link.jsonl"));
		// Half-written last line: the stop before it still counts.
		write(
			join(sessions, "h_half.jsonl"),
			`${piSession("half-1", "/w", [
				["user", "Rename the module"],
				["assistant", "Renamed; all references updated. Done."],
			])}{"type":"message","id":"x","message":{"role":"assist`,
			10 * MIN,
		);
		write(
			join(claude, "projects", "-w", "cc-1.jsonl"),
			`${[
				{
					type: "user",
					sessionId: "cc-1",
					cwd: "/w",
					uuid: "u1",
					message: { role: "user", content: "Deploy the app" },
				},
				{
					type: "assistant",
					sessionId: "cc-1",
					cwd: "/w",
					uuid: "u2",
					message: {
						id: "m1",
						role: "assistant",
						model: "claude-x",
						content: [{ type: "text", text: "Ready. Shall I deploy to production? Please approve." }],
					},
				},
			]
				.map((o) => JSON.stringify(o))
				.join("\n")}\n`,
			10 * MIN,
		);
		const run = join(agentDir, "watchdog", "runs", "20261201-100000-abcdef");
		write(
			join(run, "status.json"),
			JSON.stringify({
				id: "r",
				state: "done",
				mode: "single",
				startedAt: new Date().toISOString(),
				updatedAt: new Date().toISOString(),
				children: [{ agent: "worker" }],
			}),
			0,
		);

		const pass = runPass({ agentDir, claudeDir: claude, times: TIMES, env: {} });
		const byId = new Map(pass.sessions.map((s) => [s.id, s]));
		expect(byId.get("idle-1")?.state).toBe("idle");
		expect(byId.get("done-1")?.state).toBe("done");
		expect(byId.get("half-1")?.state).toBe("done");
		expect(byId.get("half-1")?.reason).toContain("unreadable line");
		expect(byId.get("big-1")?.state).toBe("done");
		expect(byId.get("big-1")?.label).toBe("Summarise the logs");
		expect(pass.sessions.find((s) => s.file?.endsWith("c_old.jsonl"))?.state).toBe("dormant");
		expect(byId.get("cc-1")).toMatchObject({ state: "waiting", agent: "claude-code", model: "claude-x" });
		expect(byId.get("20261201-100000-abcdef")).toMatchObject({ state: "done", source: "child-run" });
		expect(byId.has("out-1")).toBe(false);
		const reasons = Object.fromEntries(pass.skipped.map((s) => [s.path.replace(/^.*\//, ""), s.reason]));
		expect(reasons["d_corrupt.jsonl"]).toContain("not a recognised session format");
		expect(reasons["f_fifo.jsonl"]).toContain("not a regular file");
		expect(reasons["g_link.jsonl"]).toContain("leading out of the folder");

		const text = passText(pass);
		expect(text).toMatch(/^Fleet · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · \d+ sessions/);
		expect(text.indexOf("IDLE")).toBeLessThan(text.indexOf("WAITING"));
		expect(text).toContain("Rest: ");
		expect(text).not.toContain("DONE ");
		expect(passText(pass, { verbose: true })).toContain("DONE ");
	});

	it("a live entry marks its session live; a dead process's entry is removed", () => {
		const agentDir = tempDir("fleet-live-");
		const file = join(agentDir, "sessions", "--w--", "s.jsonl");
		write(
			file,
			piSession("live-1", "/w", [
				["user", "Go"],
				["assistant", "Let me run the build now."],
			]),
			10 * MIN,
		);
		const live = liveRegistration(agentDir, { sessionId: "live-1", file, cwd: "/w", busy: true, policy: "keep" });
		const dead = join(agentDir, "watchdog", "live", "999999999-dead.json");
		writeFileSync(dead, JSON.stringify({ pid: 999_999_999, key: "999999999-dead", sessionId: "gone", cwd: "/w" }));
		const pass = runPass({ agentDir, claudeDir: false, times: TIMES, env: {} });
		expect(pass.sessions.find((s) => s.id === "live-1")).toMatchObject({
			state: "working",
			live: { pid: process.pid },
		});
		expect(pass.sessions.some((s) => s.id === "gone")).toBe(false);
		expect(existsSync(dead)).toBe(false);
		live.remove();
	});
});
