// Child agents through the real `pi` CLI in RPC mode against the scripted server: a foreground
// launch, a background run (its detached runner, the completion message, status and wait),
// and the faults: a runner killed with SIGKILL is `lost`, and no runner outlives its parent.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { git, makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { callSubagent, firstUser, runIdOf, statusFile, until } from "../../support/subagent-cli.ts";
import { tempDir } from "../../support/temp.ts";

/** The parent follows "call {json}"; a child's task carries a marker saying what it does. */
function script(request: ChatRequest): Reply {
	const first = firstUser(request);
	if (first.startsWith("call ")) return subagentCallScript(request);
	if (first.includes("HANG-TASK")) return { hang: true };
	if (first.startsWith("STEER-TASK")) {
		if (last0(request)?.role !== "tool" && !request.messages.some((m) => m.role === "tool"))
			return {
				toolCalls: [
					{
						name: "bash",
						args: {
							command: `echo "$PI_SUBAGENT_PARENT_SESSION" > env.txt; for i in $(seq 1 300); do [ -f '${steerGate}' ] && break; sleep 0.1; done`,
						},
					},
				],
			};
		return {
			text: request.messages.some((m) => m.role === "user" && textOf(m.content).includes("STEERED-NOTE"))
				? "got the steer"
				: "no steer seen",
		};
	}
	const last = request.messages.at(-1);
	for (const [marker, file] of [
		["FG-TASK", "fg.txt"],
		["BG-TASK", "bg.txt"],
	]) {
		if (first.includes(marker))
			return last?.role === "tool"
				? { text: `${marker} finished` }
				: { toolCalls: [{ name: "write", args: { path: file, content: `${marker}\n` } }] };
	}
	return { text: "plain answer" };
}

const last0 = (r: ChatRequest) => r.messages.at(-1);
/** Made by the test once the runner has taken the steer: the child's tool call ends there (30 s at most). */
let steerGate = "";
const alive = (pid: number) => {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
};

describe("subagent through pi --mode rpc", () => {
	let cli: CliSession | undefined;
	afterEach(async () => {
		await cli?.stop().catch(() => {});
		cli = undefined;
	});
	const options = () => ({
		script,
		cwd: makeGitRepo({ "README.md": "hi\n" }),
		args: ["--tools", "read,bash,edit,write,subagent"],
	});
	/** A `pi` of its own, for a test that kills or quits it. */
	const start = async () => {
		cli = await startCli(options());
		return cli;
	};
	// One `pi` for the tests that leave it running (a start costs about a second): each names its
	// runs by id, and counts only the model requests made since it began.
	let shared: CliSession | undefined;
	const sharedCli = async () => {
		shared ??= await startCli(options());
		return shared;
	};
	afterAll(async () => {
		await shared?.stop().catch(() => {});
	});
	const since = (c: CliSession) => {
		const mark = c.server.requests.length;
		return () => c.server.requests.slice(mark);
	};
	const call = callSubagent;

	it("launches a foreground child that writes in the parent's tree", async () => {
		const c = await sharedCli();
		const text = await call(c, { agent: "worker", task: "FG-TASK make fg.txt" });
		expect(text).toMatch(/## worker \(worker, local\/main\): done/);
		expect(text).toContain("FG-TASK finished");
		expect(await c.client.getLastAssistantText()).toMatch(/^RESULT /);
		expect(readFileSync(join(c.cwd, "fg.txt"), "utf8")).toBe("FG-TASK\n");
	});

	it("runs a background child in a detached runner, lands its change and posts its completion", async () => {
		const c = await sharedCli();
		const started = await call(c, { agent: "worker", task: "BG-TASK make bg.txt", async: true });
		const id = runIdOf(started);
		expect(started).toMatch(/started in the background: worker/);
		// the parent's turn is over; the run goes on and its completion arrives as a message
		const completion = async () =>
			(await c.client.getEntries()).entries.find(
				(e: any) => e.type === "custom_message" && e.customType === "watchdog-subagent" && e.details?.runId === id,
			) as any;
		await until("the completion message", async () => (await completion()) !== undefined);
		const message = await completion();
		expect(textOf(message.content)).toMatch(new RegExp(`Background run ${id} ended \\(done\\)`));
		expect(textOf(message.content)).toContain("Changes landed in your tree: bg.txt");
		expect(readFileSync(join(c.cwd, "bg.txt"), "utf8")).toBe("BG-TASK\n");
		expect(await call(c, { action: "status", id })).toMatch(new RegExp(`Run ${id}: done`));
		expect(await call(c, { action: "wait", id, timeoutMs: 2000 })).toMatch(/BG-TASK finished/);
		// the runner carried the parent's session in its environment, and is gone now
		const runner = statusFile(c, id).pid as number;
		await until("the runner to exit", () => !alive(runner), 10_000);
		expect(git(c.cwd, "worktree", "list").trim().split("\n")).toHaveLength(1);
	});

	it("calls a runner killed with SIGKILL lost and cleans its worktree", async () => {
		const c = await sharedCli();
		const requests = since(c);
		const id = runIdOf(await call(c, { agent: "worker", task: "HANG-TASK wait forever", async: true }));
		await until("the child's request", () => requests().some((r) => firstUser(r).startsWith("HANG-TASK")));
		const runner = statusFile(c, id).pid as number;
		expect(existsSync(join(c.agentDir, "watchdog", "runs", id, "worktrees"))).toBe(true);
		process.kill(runner, "SIGKILL");
		const waited = await call(c, { action: "wait", id, timeoutMs: 10_000 });
		expect(waited).toMatch(new RegExp(`Run ${id}: lost`));
		expect(waited).not.toMatch(/still running/); // the wait ends when the run is found lost, whoever found it
		await until(
			"the worktree to be removed",
			() => git(c.cwd, "worktree", "list").trim().split("\n").length === 1,
			10_000,
		);
	});

	it("leaves no runner behind when the parent is killed", async () => {
		const c = await start();
		const id = runIdOf(await call(c, { agent: "worker", task: "HANG-TASK wait forever", async: true }));
		await until("the child's request", () => c.server.requests.some((r) => firstUser(r).startsWith("HANG-TASK")));
		const runner = statusFile(c, id).pid as number;
		expect(alive(runner)).toBe(true);
		const parent = (c.client as unknown as { process: { pid: number } }).process.pid;
		process.kill(parent, "SIGKILL");
		await until("the runner to stop", () => !alive(runner), 15_000);
		expect(statusFile(c, id).state).toBe("stopped");
	});

	it("stops a child that hangs at its timeoutMs, and a background run on the stop action", async () => {
		const c = await sharedCli();
		const requests = since(c);
		const timed = await call(c, { agent: "worker", task: "HANG-TASK forever", timeoutMs: 2000 });
		expect(timed).toMatch(/## worker \(worker, local\/main\): timed out, not accepted/);
		const id = runIdOf(await call(c, { agent: "worker", task: "HANG-TASK again", async: true }));
		await until(
			"the child's request",
			() => requests().filter((r) => firstUser(r).startsWith("HANG-TASK")).length >= 2,
		);
		expect(await call(c, { action: "stop", id })).toMatch(new RegExp(`stop sent to run ${id}`));
		const waited = await call(c, { action: "wait", id, timeoutMs: 15_000 });
		expect(waited).toMatch(new RegExp(`Run ${id} stopped`));
		expect(waited).toMatch(/worker .*: stopped/);
	});

	it("stops foreground children when the parent session ends, keeping what they did in the run folder", async () => {
		const c = await start();
		await c.client.prompt(`call ${JSON.stringify({ agent: "worker", task: "HANG-TASK until the parent quits" })}`);
		await until("the child's request", () => c.server.requests.some((r) => firstUser(r).startsWith("HANG-TASK")));
		const runs = join(c.agentDir, "watchdog", "runs");
		const id = readdirSync(runs)[0] as string;
		await c.stop();
		cli = undefined;
		await until(
			"the run to be recorded as stopped",
			() => existsSync(join(runs, id, "result.json")) && statusFile(c, id).state === "stopped",
			15_000,
		);
		const result = JSON.parse(readFileSync(join(runs, id, "result.json"), "utf8"));
		expect(result.results[0]).toMatchObject({ label: "worker", status: "stopped" });
	});

	it("steers a background child, whose runner carries the parent's session id", async () => {
		const c = await sharedCli();
		steerGate = join(tempDir(), "steered");
		const id = runIdOf(await call(c, { agent: "worker", task: "STEER-TASK", async: true }));
		await until("the child's first request", () =>
			c.server.requests.some((r) => firstUser(r).startsWith("STEER-TASK")),
		);
		expect(await call(c, { action: "steer", id, message: "STEERED-NOTE: also mention the steer" })).toMatch(
			/steer sent/,
		);
		// the runner takes (removes) each control file as it applies it: then the child's tool call may end
		const control = join(c.agentDir, "watchdog", "runs", id, "control");
		await until("the runner to take the steer", () => !existsSync(control) || readdirSync(control).length === 0);
		writeFileSync(steerGate, "");
		const waited = await call(c, { action: "wait", id, timeoutMs: 30_000 });
		expect(waited).toMatch(/got the steer/);
		expect(readFileSync(join(c.cwd, "env.txt"), "utf8").trim()).toMatch(/^[0-9a-f-]{8,}$/);
	});
});
