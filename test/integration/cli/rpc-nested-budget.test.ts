// The tree's budgets through the real `pi --mode rpc` (issue 30): `children.concurrency`
// counts every running descendant, not only one launch's children, and a child waiting on
// its own launch lends its place to its children, so a full tree never waits on itself.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { launchTask, nestedScript, writeAgent } from "../../support/nested-cli.ts";
import type { ChatRequest, Reply } from "../../support/openai-server.ts";
import { cliForEachTest } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";
import { callSubagent, firstUser } from "../../support/subagent-cli.ts";

/** When each tester's model was first and last asked: the time it held a place in the tree. */
const spans = new Map<string, { from: number; to: number }>();

/** "NAP <name>": sleeps a second in bash, then answers. */
function script(request: ChatRequest): Reply {
	const nap = /^NAP (\S+)/.exec(firstUser(request));
	if (!nap) return nestedScript(request);
	const now = Date.now();
	const span = spans.get(nap[1]) ?? { from: now, to: now };
	spans.set(nap[1], { ...span, to: now });
	return request.messages.some((m) => m.role === "tool")
		? { text: `${nap[1]} rested` }
		: { toolCalls: [{ name: "bash", args: { command: "sleep 1" } }] };
}

/** The most spans open at one moment. */
function mostAtOnce(all: Array<{ from: number; to: number }>): number {
	const edges = all.flatMap((s) => [
		{ at: s.from, d: 1 },
		{ at: s.to, d: -1 },
	]);
	edges.sort((a, b) => a.at - b.at || a.d - b.d);
	let open = 0;
	let most = 0;
	for (const e of edges) {
		open += e.d;
		most = Math.max(most, open);
	}
	return most;
}

describe("the tree's budgets through pi --mode rpc", () => {
	const start = cliForEachTest(() => ({
		script,
		cwd: makeGitRepo({ "README.md": "hi\n" }),
		args: ["--tools", "read,bash,edit,write,subagent"],
		userSettings: wd({ enabled: false, children: { concurrency: 2 } }),
	}));

	it("children.concurrency counts the grandchildren of every child, and the tree never waits on itself", async () => {
		const c = await start();
		writeAgent(c, "lead", {}, "read, subagent");
		writeAgent(c, "tester", {}, "read, bash");
		spans.clear();
		const naps = (a: string, b: string) => ({
			tasks: [
				{ agent: "tester", task: `NAP ${a}` },
				{ agent: "tester", task: `NAP ${b}` },
			],
		});
		const text = await callSubagent(c, {
			tasks: [
				{ agent: "lead", task: launchTask(naps("a1", "a2")) },
				{ agent: "lead", task: launchTask(naps("b1", "b2")) },
			],
		});
		expect(text.match(/## lead#\d \(lead, local\/main\): done/g)).toHaveLength(2);
		expect([...spans.keys()].sort()).toEqual(["a1", "a2", "b1", "b2"]);
		// each lead alone may run 2 testers at once; the tree as a whole may run only 2
		expect(mostAtOnce([...spans.values()])).toBeLessThanOrEqual(2);
		expect(c.server.requests.filter((r) => firstUser(r).startsWith("NAP "))).toHaveLength(8);
	});
});

describe("the tree's deadline through pi --mode rpc", () => {
	const start = cliForEachTest(() => ({
		script,
		cwd: makeGitRepo({ "README.md": "hi\n" }),
		args: ["--tools", "read,bash,edit,write,subagent"],
	}));

	it("the main session's launch timeoutMs ends the whole tree, whatever timeout a child gives its own", async () => {
		const c = await start();
		writeAgent(c, "lead", {}, "read, subagent");
		writeAgent(c, "tester", {}, "read, bash, write");
		const started = Date.now();
		const text = await callSubagent(c, {
			agent: "lead",
			timeoutMs: 4_000,
			task: launchTask({ agent: "tester", task: "WRITE-AND-HANG late.txt", timeoutMs: 600_000 }),
		});
		expect(Date.now() - started).toBeLessThan(60_000);
		expect(text).toMatch(/## lead \(lead, local\/main\): timed out/);
		// what the grandchild wrote before the time ran out is kept
		expect(readFileSync(join(c.cwd, "late.txt"), "utf8")).toBe("written by late.txt\n");
	});
});
