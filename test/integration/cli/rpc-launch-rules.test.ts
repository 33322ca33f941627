// Launch rules through the real `pi` CLI in RPC mode against the scripted server, reviews off:
// a blocked launch (foreground and background) is a tool error and nothing starts; a warned
// one runs and the parent's next request carries the concern.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";

const firstUser = (r: ChatRequest) => textOf(r.messages.find((m) => m.role === "user")?.content);

function script(request: ChatRequest): Reply {
	const first = firstUser(request);
	if (first.startsWith("call ")) return subagentCallScript(request);
	if (first.includes("RULE-TASK"))
		return request.messages.at(-1)?.role === "tool"
			? { text: "RULE-TASK finished" }
			: { toolCalls: [{ name: "write", args: { path: "rule.txt", content: "ran\n" } }] };
	return { text: "plain answer" };
}

const runs = (c: CliSession) =>
	existsSync(join(c.agentDir, "watchdog", "runs")) ? readdirSync(join(c.agentDir, "watchdog", "runs")) : [];
const childRequests = (c: CliSession) =>
	c.server.requests.filter((r) => !firstUser(r).startsWith("call ") && firstUser(r).includes("RULE-TASK")).length;
const history = (c: CliSession) =>
	readFileSync(join(c.agentDir, "watchdog", "history.jsonl"), "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l));

describe("launch rules through pi --mode rpc", () => {
	let cli: CliSession | undefined;
	afterEach(async () => {
		await cli?.stop().catch(() => {});
		cli = undefined;
	});
	const start = async (action: "warn" | "block") => {
		cli = await startCli({
			script,
			cwd: makeGitRepo({ "README.md": "hi\n" }),
			args: ["--tools", "read,bash,edit,write,subagent"],
			userSettings: wd({
				enabled: false,
				rules: {
					action,
					roleModels: { worker: { deny: ["local/main*"], note: "workers need the reviewer-grade model" } },
				},
			}),
		});
		return cli;
	};
	const call = async (c: CliSession, args: Record<string, unknown>) => {
		await c.run(`call ${JSON.stringify(args)}`, 60_000);
		const entries = (await c.client.getEntries()).entries as any[];
		const result = entries
			.filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "subagent")
			.at(-1);
		return { text: textOf(result?.message.content), isError: result?.message.isError === true };
	};

	it("blocks a foreground and a background launch before anything starts", async () => {
		const c = await start("block");
		const fg = await call(c, { agent: "worker", task: "RULE-TASK write rule.txt" });
		expect(fg.isError).toBe(true);
		expect(fg.text).toContain(
			'- worker on local/main:off breaks rules.roleModels.worker.deny "local/main*". Note: workers need the reviewer-grade model',
		);
		const bg = await call(c, { agent: "worker", task: "RULE-TASK in the background", async: true });
		expect(bg.isError).toBe(true);
		expect(bg.text).toMatch(/^Not launched: a launch rule blocks this child/);
		// a launch on a model the rule does not deny goes through
		const other = await call(c, { agent: "worker", task: "RULE-TASK on the other model", model: "local/reviewer" });
		expect(other.text).toMatch(/## worker \(worker, local\/reviewer\): done/);
		expect(childRequests(c)).toBe(2); // the allowed child's two turns only
		expect(runs(c)).toHaveLength(1);
		expect(
			history(c)
				.filter((l) => l.kind === "launch-rule")
				.map((l) => l.decision),
		).toEqual(["blocked", "blocked", "allowed"]);
	});

	it("warns: the child runs, and the parent's next request carries the concern", async () => {
		const c = await start("warn");
		const fg = await call(c, { agent: "worker", task: "RULE-TASK write rule.txt" });
		expect(fg.isError).toBe(false);
		expect(fg.text).toMatch(/## worker \(worker, local\/main\): done/);
		expect(readFileSync(join(c.cwd, "rule.txt"), "utf8")).toBe("ran\n");
		const after = c.server.requests.filter((r) => firstUser(r).startsWith("call ")).at(-1);
		const seen = after?.messages.map((m) => textOf(m.content)).join("\n") ?? "";
		expect(seen).toContain(
			'Concern: Launch rule broken: worker on local/main:off (rules.roleModels.worker.deny "local/main*")',
		);
		expect(seen).toContain("Note: workers need the reviewer-grade model.");
		const status = (await c.run("/subagents-watchdog status")).map((u) => u.message).join("\n");
		expect(status).toMatch(
			/Launch rules: 1 role with rules, warn · last: \d\d:\d\d:\d\d warned worker on local\/main:off/,
		);
	});
});
