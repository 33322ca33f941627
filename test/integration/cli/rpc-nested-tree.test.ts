// A tree of children through the real `pi --mode rpc` (issue 30): the stopped-subtree
// verification runs over the whole tree once it is at rest and names the path to an unproven
// leaf with a re-run call the parent can make; a grandchild's findings rise level by level
// through each parent's sink, and history names the path they came down.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, makeGitRepo } from "../../support/git.ts";
import {
	historyLines as history,
	launchTask,
	nestedScript,
	requestsFor,
	writeAgent,
} from "../../support/nested-cli.ts";
import type { ChatRequest } from "../../support/openai-server.ts";
import { textOf } from "../../support/openai-server.ts";
import { type CliSession, cliForEachTest } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";
import { callSubagent, firstUser, runIdOf, until } from "../../support/subagent-cli.ts";

const REPO = {
	"package.json": `${JSON.stringify({ name: "t", private: true, scripts: { test: "node -e \"console.log('1 passed')\"" } })}\n`,
};
const allText = (r: ChatRequest) => r.messages.map((m) => textOf(m.content)).join("\n");
const entries = async (c: CliSession) => (await c.client.getEntries()).entries as any[];

describe("a tree of children through pi --mode rpc", () => {
	const start = cliForEachTest(() => ({
		script: nestedScript,
		cwd: makeGitRepo(REPO),
		args: ["--tools", "read,bash,edit,write,subagent"],
		userSettings: wd({ enabled: true, main: { model: "local/reviewer" } }),
	}));

	it("verifies the tree at rest: the unproven grandchild is named by its path, with a re-run call for the parent", async () => {
		const c = await start();
		writeAgent(c, "worker");
		writeAgent(c, "tester");
		const text = await callSubagent(c, {
			agent: "worker",
			task: launchTask({ agent: "tester", task: "CLAIM the tests pass" }),
		});
		expect(text).toMatch(/## worker \(worker, local\/main\): done/);
		await until("the verification", async () =>
			(await entries(c)).some((e) => e.customType === "watchdog-verification"),
		);
		const [verification] = (await entries(c)).filter((e) => e.customType === "watchdog-verification");
		expect(verification.data.verdicts).toBe("worker > tester unproven");
		const toldAt = () =>
			c.server.requests.find(
				(r) => firstUser(r).startsWith("call ") && allText(r).includes("The watchdog verified the child agents"),
			);
		await until("the parent's model to be told", async () => toldAt() !== undefined);
		const told = allText(toldAt() as ChatRequest);
		expect(told).toMatch(/worker > tester \(run \S+\): claim not backed by its own log: "All tests pass\."/);
		expect(told).toMatch(
			/Re-run worker > tester from here with this instruction \(worker has ended, so it cannot re-run it; launch the tester agent yourself\): subagent\(\{"agent":"tester","task":"CLAIM the tests pass/,
		);
		// the worker itself launched and reported; only the leaf is verified
		expect(verification.data.children.map((ch: { label: string }) => ch.label)).toEqual(["worker > tester"]);
	});

	it("a grandchild's findings rise through each parent's sink, and history names the path", async () => {
		const c = await start();
		writeAgent(c, "worker");
		writeAgent(c, "tester");
		// every watchdog on, and hands off: findings are shown and rise, none moves a model on
		await c.run(`/subagents-watchdog session children on`);
		await c.run(`/subagents-watchdog policy handsoff`);
		await callSubagent(c, { agent: "worker", task: launchTask({ agent: "tester", task: "CLAIM the tests pass" }) });
		const lines = history(c);
		// the tester's own lines carry its path
		const testerLines = lines.filter((l) => l.role === "tester");
		expect(testerLines.length).toBeGreaterThan(0);
		expect(new Set(testerLines.map((l) => l.path))).toEqual(new Set(["worker > tester"]));
		// its claims finding, as the worker's sink and then the main session's saw it
		const claims = lines.filter((l) => l.kind === "finding" && l.source === "claims");
		const where = claims.map((l) => `${l.role ?? "main"}: ${l.child ?? "-"}`);
		expect(where).toContain("tester: -");
		expect(where).toContain("worker: tester");
		expect(where).toContain("main: worker > tester");
		const shown = await c.run("/subagents-watchdog history --source worker>tester");
		const out = shown.map((n) => n.message).join("\n");
		expect(out).toMatch(/\(child worker > tester, run \S+\)/);
		expect(out).toMatch(/\(from worker > tester\)/);
	});
});

describe("stopping a tree through pi --mode rpc", () => {
	const start = cliForEachTest(() => ({
		script: nestedScript,
		cwd: makeGitRepo({ "README.md": "hi\n" }),
		args: ["--tools", "read,bash,edit,write,subagent"],
	}));
	const waitsAfterWrite = (c: CliSession, file: string) =>
		c.server.requests.some(
			(r) => firstUser(r).startsWith(`WRITE-AND-HANG ${file}`) && r.messages.some((m) => m.role === "tool"),
		);

	it("Esc on the main session stops the whole tree and keeps what every grandchild wrote", async () => {
		const c = await start();
		writeAgent(c, "lead");
		writeAgent(c, "tester");
		const hang = (file: string) => ({ agent: "tester", task: `WRITE-AND-HANG ${file}` });
		await c.client.prompt(
			`call ${JSON.stringify({
				tasks: [
					{ agent: "lead", task: launchTask({ tasks: [hang("a1.txt"), hang("b1.txt")] }) },
					{ agent: "lead", task: launchTask(hang("c2.txt")) },
				],
			})}`,
		);
		await until(
			"every grandchild to write and wait on its model",
			() => ["a1.txt", "b1.txt", "c2.txt"].every((f) => waitsAfterWrite(c, f)),
			60_000,
		);
		await c.client.abort();
		await until(
			"the launch's result",
			async () => (await entries(c)).some((e) => e.type === "message" && e.message.role === "toolResult"),
			60_000,
		);
		for (const file of ["a1.txt", "b1.txt", "c2.txt"])
			expect(readFileSync(join(c.cwd, file), "utf8")).toBe(`written by ${file}\n`);
		await until(
			"every worktree to be removed",
			() => git(c.cwd, "worktree", "list").trim().split("\n").length === 1,
			10_000,
		);
	});

	it("a background run carries the depth into its runner, and stop keeps what its grandchild wrote", async () => {
		const c = await start();
		writeAgent(c, "lead");
		writeAgent(c, "tester");
		const call = (args: Record<string, unknown>) => callSubagent(c, args);
		const deep = runIdOf(
			await call({
				agent: "lead",
				async: true,
				task: launchTask({ agent: "lead", task: launchTask({ agent: "tester", task: "WRITE deep.txt" }) }),
			}),
		);
		const refused = await call({ action: "wait", id: deep, timeoutMs: 30_000 });
		expect(refused).toMatch(/is at depth 2, so its children would be at depth 3/);
		expect(requestsFor(c, "WRITE deep.txt")).toHaveLength(0);
		const id = runIdOf(
			await call({ agent: "lead", async: true, task: launchTask({ agent: "tester", task: "WRITE-AND-HANG bg2.txt" }) }),
		);
		await until("the grandchild to write and wait on its model", () => waitsAfterWrite(c, "bg2.txt"), 60_000);
		await call({ action: "stop", id });
		const waited = await call({ action: "wait", id, timeoutMs: 30_000 });
		expect(waited).toMatch(new RegExp(`Run ${id} stopped`));
		expect(readFileSync(join(c.cwd, "bg2.txt"), "utf8")).toBe("written by bg2.txt\n");
	});
});
