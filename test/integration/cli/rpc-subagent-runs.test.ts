// Runs through the real `pi` CLI in RPC mode against the scripted server: `interrupt` ends a
// child's current step and the run goes on; a launch's `cwd` is resolved against the parent's
// folder, writers keep their worktree in it, and an impossible one starts nothing; the cap on
// background runs at once refuses the rest.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { callSubagent as call, firstUser, runIdOf, statusFile, until } from "../../support/subagent-cli.ts";
import { wd } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

const users = (r: ChatRequest) => r.messages.filter((m) => m.role === "user").map((m) => textOf(m.content));

function script(request: ChatRequest): Reply {
	const first = firstUser(request);
	if (first.startsWith("call ")) return subagentCallScript(request);
	if (first.includes("HANG-TASK")) return { hang: true };
	// A long step; whatever the child is told next, it answers with it.
	if (first.startsWith("INTERRUPT-TASK"))
		return users(request).length > 1
			? { text: `NEXT: ${users(request).at(-1)}` }
			: { toolCalls: [{ name: "bash", args: { command: "sleep 30" } }] };
	const cwdTask = /^CWD-TASK-(\w+)/.exec(first);
	if (cwdTask)
		return request.messages.at(-1)?.role === "tool"
			? { text: `${cwdTask[0]} finished` }
			: { toolCalls: [{ name: "bash", args: { command: `pwd > where-${cwdTask[1]}.txt` } }] };
	return { text: "plain answer" };
}

describe("runs through pi --mode rpc", () => {
	let cli: CliSession | undefined;
	afterEach(async () => {
		await cli?.stop().catch(() => {});
		cli = undefined;
	});
	const start = async (options: { repo?: Record<string, string>; settings?: unknown } = {}) => {
		cli = await startCli({
			script,
			cwd: makeGitRepo(options.repo ?? { "README.md": "hi\n" }),
			args: ["--tools", "read,bash,edit,write,subagent"],
			...(options.settings ? { userSettings: wd(options.settings) } : {}),
		});
		return cli;
	};
	const childRequests = (c: CliSession, marker: string) =>
		c.server.requests.filter((r) => firstUser(r).startsWith(marker));
	/** The run's status says its child's tool call (bash) has started. */
	const bashRunning = (c: CliSession, id: string) => statusFile(c, id).children[0]?.tool === "bash";

	it("interrupt ends the child's current step only: the run goes on with a queued steer, else a continuation", async () => {
		const c = await start();
		const id = runIdOf(await call(c, { agent: "worker", task: "INTERRUPT-TASK alone", async: true }));
		await until("the child's request", () => childRequests(c, "INTERRUPT-TASK alone").length > 0);
		await until("its `sleep 30` to run", () => bashRunning(c, id));
		const started = Date.now();
		expect(await call(c, { action: "interrupt", id })).toMatch(/interrupt sent/);
		const waited = await call(c, { action: "wait", id, timeoutMs: 25_000 });
		expect(waited).toMatch(new RegExp(`Run ${id} done`));
		expect(waited).toMatch(/## worker \(worker, local\/main\): done/);
		expect(waited).toMatch(/NEXT: .*interrupted your current step\. Continue with your task/);
		expect(Date.now() - started).toBeLessThan(25_000);

		const steered = runIdOf(await call(c, { agent: "worker", task: "INTERRUPT-TASK steered", async: true }));
		await until("the second child's request", () => childRequests(c, "INTERRUPT-TASK steered").length > 0);
		await until("its `sleep 30` to run", () => bashRunning(c, steered));
		expect(await call(c, { action: "steer", id: steered, message: "NEW-PLAN: report the plan" })).toMatch(/steer sent/);
		expect(await call(c, { action: "interrupt", id: steered })).toMatch(/interrupt sent/);
		const second = await call(c, { action: "wait", id: steered, timeoutMs: 25_000 });
		expect(second).toMatch(/: done/);
		expect(second).toMatch(
			/NEXT: .*interrupted your current step\. It asks you to do this next:\n+NEW-PLAN: report the plan/,
		);
	});

	it("gives background and parallel writers a worktree in the cwd's matching subfolder, resolved against the parent's folder", async () => {
		const c = await start({ repo: { "README.md": "hi\n", "sub/keep.txt": "x\n" } });
		const id = runIdOf(await call(c, { agent: "worker", task: "CWD-TASK-bg", cwd: "sub", async: true }));
		const waited = await call(c, { action: "wait", id, timeoutMs: 30_000 });
		expect(waited).toMatch(/: done/);
		const bg = readFileSync(join(c.cwd, "sub", "where-bg.txt"), "utf8").trim();
		expect(bg).toMatch(new RegExp(`/watchdog/runs/${id}/worktrees/.+/sub$`));

		const parallel = await call(c, {
			tasks: [
				{ agent: "worker", task: "CWD-TASK-one" },
				{ agent: "worker", task: "CWD-TASK-two" },
			],
			cwd: "sub",
		});
		expect(parallel).toMatch(/2 children: 2 done/);
		for (const name of ["one", "two"])
			expect(readFileSync(join(c.cwd, "sub", `where-${name}.txt`), "utf8").trim()).toMatch(
				/\/watchdog\/runs\/.+\/worktrees\/.+\/sub$/,
			);
		expect(git(c.cwd, "worktree", "list").trim().split("\n")).toHaveLength(1);
	});

	it("refuses an impossible cwd before anything starts, saying the rule", async () => {
		const c = await start({
			repo: { "README.md": "hi\n", "sub/keep.txt": "x\n", ".gitignore": "build/\n", "build/out.txt": "o\n" },
		});
		const outside = tempDir("pi-watchdog-outside-");
		expect(await call(c, { agent: "worker", task: "CWD-TASK-x", cwd: "missing" })).toMatch(
			/cwd "missing" .*does not exist/,
		);
		expect(await call(c, { agent: "worker", task: "CWD-TASK-x", cwd: "README.md", async: true })).toMatch(
			/cwd "README.md" .*not a folder/,
		);
		expect(await call(c, { agent: "scout", task: "CWD-TASK-x", cwd: "../" })).toMatch(
			/cwd "\.\.\/" .*outside this session's repository/,
		);
		expect(
			await call(c, {
				tasks: [
					{ agent: "worker", task: "CWD-TASK-x" },
					{ agent: "worker", task: "CWD-TASK-y", cwd: outside },
				],
			}),
		).toMatch(/step 2: cwd ".*" .*outside this session's repository/);
		expect(await call(c, { agent: "worker", task: "CWD-TASK-x", cwd: "build", async: true })).toMatch(
			/cwd "build" .*ignored by git/,
		);
		// nothing started: no run folder, no child request
		const runs = join(c.agentDir, "watchdog", "runs");
		expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
		expect(childRequests(c, "CWD-TASK")).toEqual([]);
	});

	it("refuses a background launch past children.maxBackground, naming the running runs", async () => {
		const c = await start({ settings: { children: { maxBackground: 1 } } });
		const first = runIdOf(await call(c, { agent: "worker", task: "HANG-TASK one", async: true }));
		await until("the child's request", () => childRequests(c, "HANG-TASK").length > 0);
		const refused = await call(c, { agent: "worker", task: "HANG-TASK two", async: true });
		expect(refused).toMatch(/not launched: 1 background run is already running \(children\.maxBackground is 1\)/);
		expect(refused).toContain(first);
		expect(readdirSync(join(c.agentDir, "watchdog", "runs"))).toEqual([first]);
		expect(await call(c, { action: "stop", id: first })).toMatch(/stop sent/);
		await call(c, { action: "wait", id: first, timeoutMs: 15_000 });
		// a run that ended frees its place
		expect(await call(c, { agent: "scout", task: "plain", async: true })).toMatch(/started in the background/);
	});
});
