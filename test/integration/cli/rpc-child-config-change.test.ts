// A child agent with the `subagent` tool changing the watchdog's settings, through the real
// `pi --mode rpc` (issue 23, item 14): every change it asks for reaches the parent's user the
// way the parent's own would (a notice, a history line), a change that lowers oversight is
// refused there as it would be for the parent, and the child is told the user knows only
// when the user was told.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { readJson, userSettingsPath, wd } from "../../support/settings-files.ts";

const firstUser = (r: ChatRequest) => textOf(r.messages.find((m) => m.role === "user")?.content);

/** Parent: "call {json}". Child: "CONFIGURE {json}" makes that watchdog.configure call, then reports what it was told. */
function script(request: ChatRequest): Reply {
	const first = firstUser(request);
	if (first.startsWith("call ")) return subagentCallScript(request);
	if (request.tools?.some((t) => t.function.name === "watchdog_warn")) return { text: "Nothing to report." };
	const file = /OVERWRITE (\S+) (\{.*\})/.exec(first);
	if (file)
		return request.messages.at(-1)?.role === "tool"
			? { text: "overwritten" }
			: { toolCalls: [{ name: "write", args: { path: file[1], content: file[2] } }] };
	const args = /CONFIGURE (\{.*\})/.exec(first)?.[1];
	if (args) {
		const last = request.messages.at(-1);
		return last?.role === "tool"
			? { text: `CHILD WAS TOLD: ${textOf(last.content)}` }
			: { toolCalls: [{ name: "subagent", args: { action: "watchdog.configure", ...JSON.parse(args) } }] };
	}
	return { text: "plain answer" };
}

describe("pi --mode rpc: a child's watchdog.configure", () => {
	let cli: CliSession;

	beforeAll(async () => {
		cli = await startCli({
			script,
			cwd: makeGitRepo({ "README.md": "hi\n" }),
			models: [{ id: "main" }, { id: "reviewer", reasoning: true }],
			userSettings: wd({ enabled: true, main: { model: "local/reviewer", thinking: "low" } }),
			args: ["--tools", "read,bash,edit,write,subagent"],
		});
		mkdirSync(join(cli.agentDir, "agents"), { recursive: true });
		writeFileSync(
			join(cli.agentDir, "agents", "tuner.md"),
			"---\nname: tuner\ndescription: adjusts the watchdog\ntools: read, write, subagent\n---\nYou adjust the watchdog when asked.\n",
		);
	});
	afterAll(async () => {
		await cli?.stop();
	});

	/** The parent launches the tuner with `args`; returns the notices its user got and the child's answer. */
	const childConfigures = async (args: Record<string, unknown>) => {
		const notices = await cli.run(
			`call ${JSON.stringify({ agent: "tuner", task: `CONFIGURE ${JSON.stringify(args)}` })}`,
			60_000,
		);
		const entries = (await cli.client.getEntries()).entries as any[];
		const result = textOf(
			entries
				.filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "subagent")
				.at(-1)?.message.content,
		);
		return { notices, result };
	};
	const historyLines = () =>
		readFileSync(join(cli.agentDir, "watchdog", "history.jsonl"), "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l))
			.filter((e) => e.kind === "config-change");

	it("shows the user a change the child made to the user's settings, and records it", async () => {
		const { notices, result } = await childConfigures({ scope: "user", target: "main", thinking: "high" });
		expect(readJson(userSettingsPath(cli.agentDir)).subagents.watchdog.main).toEqual({
			model: "local/reviewer",
			thinking: "high",
		});
		const shown = notices.find((n) => /changed the watchdog settings/.test(n.message ?? ""));
		expect(shown?.message).toMatch(
			/^The tuner child agent changed the watchdog settings: Set main\.thinking = "high" \(main watchdog\) in user settings/,
		);
		expect(result).toMatch(/CHILD WAS TOLD: [\s\S]*The user has been told of this change\./);
		expect(historyLines().at(-1)).toMatchObject({
			by: "agent",
			outcome: "applied",
			role: "tuner",
			change: "/subagents-watchdog thinking high",
		});
	});

	it("refuses a change that lowers oversight, as for the parent, and the user is told", async () => {
		const before = readFileSync(userSettingsPath(cli.agentDir), "utf8");
		const { notices, result } = await childConfigures({ scope: "user", target: "main", enabled: false });
		expect(readFileSync(userSettingsPath(cli.agentDir), "utf8")).toBe(before);
		const refused = notices.find((n) => /Refused a change/.test(n.message ?? ""));
		expect(refused?.notifyType).toBe("warning");
		expect(refused?.message).toMatch(
			/^Refused a change the tuner child agent asked for, because it lowers the watchdog's oversight: turns the main watchdog off\./,
		);
		expect(result).toMatch(
			/CHILD WAS TOLD: Not changed: [\s\S]*in rpc mode there is no way to ask[\s\S]*The user has been told\. Do not retry it\./,
		);
		expect(historyLines().at(-1)).toMatchObject({ outcome: "refused", role: "tuner" });
	});

	it("holds back the child's own write of the settings file, named by the parent's subagent call", async () => {
		const path = userSettingsPath(cli.agentDir);
		const off = JSON.stringify({ ...readJson(path), ...wd({ enabled: false }) });
		const notices = await cli.run(
			`call ${JSON.stringify({ agent: "tuner", task: `OVERWRITE ${path} ${off}` })}`,
			60_000,
		);
		expect(readJson(path).subagents.watchdog).toEqual({ enabled: false });
		const held = notices.find((n) => /^Held back a change/.test(n.message ?? ""));
		expect(held?.message).toMatch(/made by the agent's subagent call #1 of this run[\s\S]*turns the main watchdog off/);
		const status = (await cli.run("/subagents-watchdog status")).map((n) => n.message).join("\n");
		expect(status).toMatch(
			/^Settings change held back \(\/subagents-watchdog settings accept takes it\): turns the main watchdog off/m,
		);
	});
});
