// A wait on the permission arbiter reaches the fleet view, through the real `pi --mode rpc` (issue
// 30): while a child's write waits on a slow arbiter, the main session's live entry says what it
// waits on and since when; a fleet pass over that agent dir shows the session `waiting` (not idle,
// not nudged), and `fleet.notify` gets one line for it, once. When the arbiter answers, the entry
// no longer says so.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { fleetRun } from "../../../src/fleet/run.ts";
import { listLive } from "../../../src/fleet/live.ts";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript } from "../../support/openai-server.ts";
import { cliForEachTest } from "../../support/pi-cli.ts";
import { wd, writeJson } from "../../support/settings-files.ts";
import { firstUser, until } from "../../support/subagent-cli.ts";
import { tempDir } from "../../support/temp.ts";

const MIN = 60_000;
/** The arbiter's answer waits until the test has seen the entry and run two passes (under its 20 s timeout). */
let arbiterAnswers: () => void = () => {};
const arbiterGate = new Promise<void>((r) => (arbiterAnswers = r));

function script(request: ChatRequest): Reply {
	const first = firstUser(request);
	if (first.startsWith("call ")) return subagentCallScript(request);
	if (request.tools?.some((t) => t.function.name === "permission_decision"))
		return {
			gate: arbiterGate,
			reply: { toolCalls: [{ name: "permission_decision", args: { decision: "deny", reason: "not needed" } }] },
		};
	if (request.tools?.some((t) => t.function.name === "watchdog_warn")) return { text: "Nothing to report." };
	if (!first.startsWith("SLOW")) return { text: "plain answer" };
	if (request.messages.some((m) => m.role === "tool")) return { text: "The write was denied; stopping." };
	return { toolCalls: [{ name: "write", args: { path: "slow.txt", content: "waited\n" } }] };
}

const start = cliForEachTest(() => ({
	script,
	cwd: makeGitRepo({ "README.md": "hi\n" }),
	session: true,
	userSettings: wd({ enabled: true, main: { model: "local/reviewer" }, children: { enabled: true } }),
	args: ["--tools", "read,bash,edit,write,subagent"],
}));

it("a child's ask pending on a slow arbiter shows the session waiting in its live entry and the fleet view", async () => {
	const c = await start();
	writeJson(join(c.agentDir, "extensions", "subagent", "config.json"), { permissions: { rules: { write: "ask" } } });
	const notified = join(tempDir("fleet-notify-"), "rows.jsonl");
	const pass = () =>
		fleetRun({
			agentDir: c.agentDir,
			env: {},
			claudeDir: false,
			times: { stallMs: 3 * MIN, dormantMs: 24 * 60 * MIN },
			nudge: false,
			limits: { cooldownMs: 30 * MIN, maxNudges: 3 },
			notify: `cat >> '${notified}'`,
		});
	const rows = () => (existsSync(notified) ? readFileSync(notified, "utf8").trim().split("\n") : []);
	const mark = c.events.length;
	await c.client.prompt(`call ${JSON.stringify({ agent: "worker", task: "SLOW write" })}`);
	await until("the live entry to say it waits", () => listLive(c.agentDir).some((e) => e.waiting));
	const [entry] = listLive(c.agentDir);
	expect(entry.waiting?.what).toBe("worker: waiting on the permission arbiter for write");
	expect(Date.now() - Date.parse(entry.waiting?.since ?? "")).toBeLessThan(10_000);
	expect(entry.busy).toBe(true);

	const first = await pass();
	const row = first.pass.sessions.find((s) => s.live?.key === entry.key);
	expect(row?.id).toBe(entry.sessionId);
	expect(row?.state).toBe("waiting");
	expect(row?.reason).toMatch(
		/^worker: waiting on the permission arbiter for write \(for \d+s, the live session says so\)$/,
	);
	expect(row?.attention).toBe(true);
	expect(rows().map((r) => JSON.parse(r))).toEqual([
		expect.objectContaining({ id: entry.sessionId, state: "waiting", reason: row?.reason }),
	]);
	// Still waiting on the next pass: no second line (once per state change).
	const second = await pass();
	expect(second.pass.sessions.find((s) => s.live?.key === entry.key)?.state).toBe("waiting");
	expect(rows()).toHaveLength(1);

	// The arbiter answers: the wait ends, and the entry says so.
	arbiterAnswers();
	await until("the run to settle", () => c.events.slice(mark).some((e) => e.type === "agent_settled"), 60_000);
	await until("the wait to leave the live entry", () => listLive(c.agentDir).every((e) => !e.waiting));
	const after = await pass();
	expect(after.pass.sessions.find((s) => s.live?.key === entry.key)?.state).not.toBe("waiting");
	const history = readFileSync(join(c.agentDir, "watchdog", "history.jsonl"), "utf8");
	expect(history).toContain('"how":"arbiter"');
});
