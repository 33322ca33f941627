// Child tool permissions through the real `pi` CLI in RPC mode against the scripted server:
// a global `write: ask` rule, the arbiter (the child watchdog's model on the same server)
// approving one child's write and denying another's, and the history lines both leave.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { wd, writeJson } from "../../support/settings-files.ts";

const firstUser = (r: ChatRequest) => textOf(r.messages.find((m) => m.role === "user")?.content);

/** Parent: "call {json}". Child: writes the file its task names. Arbiter: approves APPROVE tasks, denies the rest. Reviews: clean. */
function script(request: ChatRequest): Reply {
	const first = firstUser(request);
	if (first.startsWith("call ")) return subagentCallScript(request);
	if (request.tools?.some((t) => t.function.name === "permission_decision")) {
		return first.includes("APPROVE")
			? {
					toolCalls: [
						{ name: "permission_decision", args: { decision: "approve", reason: "writing that file is the task" } },
					],
				}
			: {
					toolCalls: [
						{ name: "permission_decision", args: { decision: "deny", reason: "the task does not need a new file" } },
					],
				};
	}
	if (request.tools?.some((t) => t.function.name === "watchdog_warn")) return { text: "Nothing to report." };
	const file = /WRITE (\S+)/.exec(first)?.[1];
	if (file)
		return request.messages.at(-1)?.role === "tool"
			? { text: `child finished: ${textOf(request.messages.at(-1)?.content).slice(0, 300)}` }
			: { toolCalls: [{ name: "write", args: { path: file, content: "from the child\n" } }] };
	return { text: "plain answer" };
}

let cli: CliSession | undefined;
afterEach(async () => {
	await cli?.stop().catch(() => {});
	cli = undefined;
});

async function start(): Promise<CliSession> {
	const cwd = makeGitRepo({ "README.md": "hi\n" });
	const c = await startCli({
		script,
		cwd,
		userSettings: wd({ enabled: true, main: { model: "local/reviewer" }, children: { enabled: true } }),
		args: ["--tools", "read,bash,edit,write,subagent"],
	});
	writeJson(join(c.agentDir, "extensions", "subagent", "config.json"), { permissions: { rules: { write: "ask" } } });
	return c;
}

const call = async (c: CliSession, args: Record<string, unknown>) => {
	await c.run(`call ${JSON.stringify(args)}`, 90_000);
	const entries = (await c.client.getEntries()).entries as any[];
	return textOf(
		entries
			.filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "subagent")
			.at(-1)?.message.content,
	);
};

const permissionLines = (c: CliSession) =>
	readFileSync(join(c.agentDir, "watchdog", "history.jsonl"), "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l))
		.filter((e) => e.kind === "permission");

it("holds a child's write for the arbiter: approved once, denied once, both in history", async () => {
	cli = await start();
	const cwd = cli.cwd;

	const approved = await call(cli, { agent: "worker", task: "APPROVE: WRITE yes.txt" });
	expect(approved).toMatch(/worker .*: done/);
	expect(approved).toContain("child finished: Successfully wrote");
	expect(readFileSync(join(cwd, "yes.txt"), "utf8")).toBe("from the child\n");

	const denied = await call(cli, { agent: "worker", task: "WRITE no.txt" });
	expect(denied).toContain("The permission arbiter denied this write call");
	expect(denied).toContain("the task does not need a new file");
	expect(existsSync(join(cwd, "no.txt"))).toBe(false);

	// the arbiter was shown the tool, the role, the task and a preview; never asked to talk to the parent
	const asks = cli.server.requests.filter((r) => r.tools?.some((t) => t.function.name === "permission_decision"));
	expect(asks).toHaveLength(2);
	expect(asks.every((r) => r.tools?.length === 1)).toBe(true);
	expect(firstUser(asks[0])).toMatch(
		/Role: worker[\s\S]*APPROVE: WRITE yes\.txt[\s\S]*Tool: write[\s\S]*path: yes\.txt/,
	);

	const lines = permissionLines(cli);
	expect(lines.map((l) => [l.role, l.tool, l.how, l.decision])).toEqual([
		["worker", "write", "arbiter", "approve"],
		["worker", "write", "arbiter", "deny"],
	]);
	expect(
		lines.every((l) => typeof l.run === "string" && typeof l.latencyMs === "number" && l.model === "local/reviewer"),
	).toBe(true);
	const history = (await cli.run("/subagents-watchdog history --kind permission")).map((u) => u.message).join("\n");
	expect(history).toMatch(/write denied by the arbiter local\/reviewer · rule "write": "ask"/);
	expect(history).toMatch(/write approved by the arbiter local\/reviewer/);
}, 180_000);

it("gates a background child in its detached runner the same way", async () => {
	cli = await start();
	const started = await call(cli, { agent: "worker", task: "APPROVE: WRITE bg.txt", async: true });
	const id = /Run (\d{8}-\d{6}-[0-9a-f]{6})/.exec(started)?.[1] as string;
	expect(id).toBeTruthy();
	const waited = await call(cli, { action: "wait", id, timeoutMs: 60_000 });
	expect(waited).toContain("child finished: Successfully wrote");
	expect(readFileSync(join(cli.cwd, "bg.txt"), "utf8")).toBe("from the child\n");
	const denied = await call(cli, {
		action: "wait",
		id: /Run (\S+)/.exec(await call(cli, { agent: "worker", task: "WRITE bg-no.txt", async: true }))?.[1],
		timeoutMs: 60_000,
	});
	expect(denied).toContain("The permission arbiter denied this write call");
	expect(existsSync(join(cli.cwd, "bg-no.txt"))).toBe(false);
	expect(permissionLines(cli).map((l) => [l.role, l.how, l.decision])).toEqual([
		["worker", "arbiter", "approve"],
		["worker", "arbiter", "deny"],
	]);
}, 180_000);
