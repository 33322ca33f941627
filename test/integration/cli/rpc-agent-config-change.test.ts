// The agent trying to lower its own oversight through the real `pi --mode rpc` (and `pi -p`): no person can
// be asked there, so the change is refused with the command the user can run, the client is
// told, and the session records it; the settings file stays byte for byte as it was.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, subagentCallScript } from "../../support/openai-server.ts";
import { type CliSession, REPO_ROOT, runPi, startCli, writeModelsJson } from "../../support/pi-cli.ts";
import { QUIET_PI_SETTINGS } from "../../support/pi-session.ts";
import { userSettingsPath, wd, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

const script = subagentCallScript;

describe("pi --mode rpc: the agent cannot lower its own oversight", () => {
	let cli: CliSession;
	let settingsFile: string;

	/** The agent's call, what the client was told meanwhile, and the tool result it got back. */
	const agentCalls = async (args: Record<string, unknown>) => {
		const notifies = await cli.run(`call ${JSON.stringify({ action: "watchdog.configure", ...args })}`);
		return { notifies, result: (await cli.client.getLastAssistantText()) ?? "" };
	};
	const changeEntries = async () => {
		const { entries } = await cli.client.getEntries();
		return entries
			.filter((e: any) => e.type === "custom" && e.customType === "watchdog-config-change")
			.map((e: any) => e.data);
	};

	beforeAll(async () => {
		// "main" falls in the provider's family (local); "gpt-reviewer" is an OpenAI-family model.
		cli = await startCli({
			script,
			models: [{ id: "main" }, { id: "gpt-reviewer", reasoning: true }],
			userSettings: {
				theme: "dark",
				...wd({ enabled: true, main: { model: "local/gpt-reviewer", thinking: "high" } }),
			},
			args: ["--tools", "read,bash,edit,write,subagent"],
		});
		settingsFile = readFileSync(userSettingsPath(cli.agentDir), "utf8");
	});
	afterAll(async () => {
		await cli?.stop();
	});

	it("refuses turning the watchdog off in user settings, and says which command does it", async () => {
		const { notifies, result } = await agentCalls({ enabled: false, scope: "user" });
		expect(readFileSync(userSettingsPath(cli.agentDir), "utf8")).toBe(settingsFile);
		expect(result).toMatch(
			/^RESULT Not changed: this change lowers the watchdog's oversight \(turns the main watchdog off\)\./,
		);
		expect(result).toMatch(
			/in rpc mode there is no way to ask\. Only the user can make it, with:\n {2}\/subagents-watchdog off\n/,
		);
		const refused = notifies.find((n) => /^Refused a change the agent asked for/.test(n.message ?? ""));
		expect(refused?.notifyType).toBe("warning");
		expect(refused?.message).toMatch(
			/turns the main watchdog off\.\nTo make it yourself:\n {2}\/subagents-watchdog off$/,
		);
		expect((await changeEntries()).at(-1)).toEqual({
			at: expect.any(String),
			by: "agent",
			request: { scope: "user", target: "main", enabled: false },
			lowered: ["turns the main watchdog off"],
			outcome: "refused",
			command: "/subagents-watchdog off",
		});
	});

	it("refuses pointing the reviewer at the session's own model", async () => {
		const { notifies, result } = await agentCalls({ model: "local/main", scope: "user" });
		expect(readFileSync(userSettingsPath(cli.agentDir), "utf8")).toBe(settingsFile);
		expect(result).toMatch(
			/^RESULT Not changed: [^\n]*the main watchdog's reviewer would be the session's own model \(local\/main\)/,
		);
		expect(result).toMatch(/\n {2}\/subagents-watchdog model local\/main\n/);
		expect(notifies.some((n) => /^Refused a change the agent asked for/.test(n.message ?? ""))).toBe(true);
		const last = (await changeEntries()).at(-1);
		expect(last).toMatchObject({
			by: "agent",
			outcome: "refused",
			request: { model: "local/main", scope: "user" },
			command: "/subagents-watchdog model local/main",
		});
		expect(last.lowered).toContain(
			"the main watchdog's reviewer would be the session's own model (local/main): it would review its own work",
		);
		// Nothing changed for this session either.
		const status = (await cli.run("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
		expect(status).toMatch(/Reviewer model: local\/gpt-reviewer, thinking high/);
	});

	it("the command it names does the change when the user runs it", async () => {
		const out = (await cli.run("/subagents-watchdog model local/main")).map((n) => n.message).join("\n");
		expect(out).toMatch(/main\.model = "local\/main"/);
		// The user's command asks nothing and is not recorded as an agent change.
		expect((await changeEntries()).filter((e) => e.outcome === "applied")).toEqual([]);
	});
});

describe("pi -p: the agent cannot lower its own oversight", () => {
	it("refuses, tells the user on stderr, and leaves the settings file alone", async () => {
		const server = await startScriptedServer(script);
		try {
			const agentDir = tempDir();
			writeModelsJson(agentDir, server.baseUrl, [{ id: "main" }]);
			writeJson(userSettingsPath(agentDir), {
				defaultProvider: "local",
				defaultModel: "main",
				...QUIET_PI_SETTINGS,
				...wd({ enabled: true }),
			});
			const before = readFileSync(userSettingsPath(agentDir), "utf8");
			const call = `call ${JSON.stringify({ action: "watchdog.configure", enabled: false, scope: "user" })}`;
			const args = ["-p", "--no-session", "--tools", "read,subagent", "-e", resolve(REPO_ROOT, "index.ts"), call];
			const { code, stdout, stderr } = await runPi(args, { cwd: tempDir(), agentDir });
			expect(code).toBe(0);
			expect(readFileSync(userSettingsPath(agentDir), "utf8")).toBe(before);
			expect(stdout).toMatch(
				/RESULT Not changed: [\s\S]*in print mode there is no way to ask[\s\S]*\/subagents-watchdog off/,
			);
			expect(stderr).toMatch(
				/Refused a change the agent asked for, because it lowers the watchdog's oversight: turns the main watchdog off\.\nTo make it yourself:\n {2}\/subagents-watchdog off/,
			);
		} finally {
			await server.close();
		}
	});
});
