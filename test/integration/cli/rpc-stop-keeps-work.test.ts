// Stopping child work never throws away what a child wrote, through the real `pi --mode rpc`
// CLI: Esc (RPC `abort`) during a parallel launch and `stop` on a background run land the
// children's files in the user's tree (or keep a patch that exists and applies), and a child
// that changed nothing reports no conflict.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { git, makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { callSubagent, firstUser, runIdOf, statusFile, until } from "../../support/subagent-cli.ts";

/** "WRITE-AND-HANG <file>": the child writes <file>, then its model never answers again. */
function script(request: ChatRequest): Reply {
	const first = firstUser(request);
	if (first.startsWith("call ")) return subagentCallScript(request);
	const writer = /WRITE-AND-HANG (\S+)/.exec(first);
	if (writer)
		return request.messages.some((m) => m.role === "tool")
			? { hang: true }
			: { toolCalls: [{ name: "write", args: { path: writer[1], content: `written by ${writer[1]}\n` } }] };
	if (first.startsWith("HANG-TASK")) return { hang: true };
	return { text: "plain answer" };
}

/** The requests a child made after its write came back (it is waiting on its model now). */
const afterWrite = (c: CliSession, file: string) =>
	c.server.requests.some(
		(r) => firstUser(r).startsWith(`WRITE-AND-HANG ${file}`) && r.messages.some((m) => m.role === "tool"),
	);

/** Every patch a result names exists. */
function namedPatches(text: string): string[] {
	return [...text.matchAll(/patch is at (\S+?)\.?(?:\s|$)/g)].map((m) => m[1]);
}

describe("stopping child work keeps what the children wrote", () => {
	// One `pi` for the three tests (a start costs about a second): their children's files and tasks
	// have names of their own, and each reads only the results and runs it started.
	let shared: CliSession | undefined;
	const start = async () => {
		shared ??= await startCli({
			script,
			cwd: makeGitRepo({ "README.md": "hi\n" }),
			args: ["--tools", "read,bash,edit,write,subagent"],
		});
		return shared;
	};
	afterAll(async () => {
		await shared?.stop().catch(() => {});
	});
	const subagentResults = async (c: CliSession) => {
		const entries = (await c.client.getEntries()).entries as any[];
		return entries
			.filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "subagent")
			.map((e) => textOf(e.message.content));
	};

	it("Esc during a parallel launch lands both children's files in the user's tree", async () => {
		const c = await start();
		const earlier = (await subagentResults(c)).length;
		await c.client.prompt(
			`call ${JSON.stringify({
				tasks: [
					{ agent: "worker", task: "WRITE-AND-HANG one.txt" },
					{ agent: "worker", task: "WRITE-AND-HANG two.txt" },
				],
			})}`,
		);
		await until(
			"both children to write and wait on their model",
			() => afterWrite(c, "one.txt") && afterWrite(c, "two.txt"),
		);
		await c.client.abort();
		await until("the launch's result", async () => (await subagentResults(c)).length > earlier);
		const text = (await subagentResults(c))[earlier];
		expect(text).not.toMatch(/could not merge|was aborted/);
		for (const file of ["one.txt", "two.txt"])
			expect(readFileSync(join(c.cwd, file), "utf8")).toBe(`written by ${file}\n`);
		expect(text).toMatch(/Changes landed in your tree: one\.txt/);
		expect(text).toMatch(/Changes landed in your tree: two\.txt/);
		for (const patch of namedPatches(text)) expect(existsSync(patch)).toBe(true);
		await until(
			"the worktrees to be removed",
			() => git(c.cwd, "worktree", "list").trim().split("\n").length === 1,
			10_000,
		);
	});

	it("stop on a background run: a child that wrote lands its file, one that changed nothing reports no conflict", async () => {
		const c = await start();
		const call = (args: Record<string, unknown>) => callSubagent(c, args);
		const id = runIdOf(
			await call({
				tasks: [
					{ agent: "worker", task: "WRITE-AND-HANG bg.txt" },
					{ agent: "worker", task: "HANG-TASK idle" },
				],
				async: true,
			}),
		);
		await until("the writer to wait on its model", () => afterWrite(c, "bg.txt"));
		await until("the idle child's request", () =>
			c.server.requests.some((r) => firstUser(r).startsWith("HANG-TASK idle")),
		);
		expect(await call({ action: "stop", id })).toMatch(new RegExp(`stop sent to run ${id}`));
		const waited = await call({ action: "wait", id, timeoutMs: 30_000 });
		expect(waited).toMatch(new RegExp(`Run ${id} stopped`));
		expect(waited).not.toMatch(/merge conflict|Merge conflict|could not merge/i);
		expect(waited).toMatch(/Changes landed in your tree: bg\.txt/);
		expect(waited).toMatch(/worker#2 .*: stopped[\s\S]*Changes: none\./);
		expect(readFileSync(join(c.cwd, "bg.txt"), "utf8")).toBe("written by bg.txt\n");
		for (const patch of namedPatches(waited)) expect(existsSync(patch)).toBe(true);
	});

	it("a lost run's cleanup leaves another run's worktree alone, and what it wrote lands when that run is stopped", async () => {
		const c = await start();
		const call = (args: Record<string, unknown>) => callSubagent(c, args);
		const writer = runIdOf(await call({ agent: "worker", task: "WRITE-AND-HANG kept.txt", async: true }));
		await until("the writer to wait on its model", () => afterWrite(c, "kept.txt"));
		const doomed = runIdOf(await call({ agent: "worker", task: "HANG-TASK doomed", async: true }));
		await until("the doomed child's request", () =>
			c.server.requests.some((r) => firstUser(r).startsWith("HANG-TASK doomed")),
		);
		expect(git(c.cwd, "worktree", "list")).toContain(join(doomed, "worktrees"));
		process.kill(statusFile(c, doomed).pid as number, "SIGKILL");
		const lost = await call({ action: "wait", id: doomed, timeoutMs: 10_000 });
		expect(lost).toMatch(new RegExp(`Run ${doomed}: lost`));
		expect(lost).not.toMatch(/still running/);
		// the lost run's cleanup runs in the background: it has run once the doomed run's worktree is gone
		await until(
			"the lost run's worktree to be removed",
			() => !git(c.cwd, "worktree", "list").includes(join(doomed, "worktrees")),
			10_000,
		);
		expect(git(c.cwd, "worktree", "list")).toContain(join(writer, "worktrees"));
		await call({ action: "stop", id: writer });
		const waited = await call({ action: "wait", id: writer, timeoutMs: 30_000 });
		expect(waited).toMatch(/Changes landed in your tree: kept\.txt/);
		expect(readFileSync(join(c.cwd, "kept.txt"), "utf8")).toBe("written by kept.txt\n");
	});
});
