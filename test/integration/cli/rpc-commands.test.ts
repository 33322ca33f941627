// Every command and tool action through the real `pi` CLI in RPC mode, against a scripted
// OpenAI-compatible server; and the status command in print mode.
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subagentCallScript } from "../../support/openai-server.ts";
import { type CliSession, REPO_ROOT, runPi, startCli, writeModelsJson } from "../../support/pi-cli.ts";
import { startScriptedServer } from "../../support/openai-server.ts";
import { QUIET_PI_SETTINGS } from "../../support/pi-session.ts";
import { readJson, userSettingsPath, wd, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

const script = subagentCallScript;

describe("pi --mode rpc", () => {
	let cli: CliSession;
	const say = async (cmd: string) => {
		const out = await cli.run(cmd);
		expect(out.length, `no notify for ${cmd}`).toBeGreaterThan(0);
		return out.map((n) => n.message).join("\n");
	};
	const tool = async (args: Record<string, unknown>) => {
		await cli.run(`call ${JSON.stringify(args)}`);
		return (await cli.client.getLastAssistantText()) ?? "";
	};

	beforeAll(async () => {
		cli = await startCli({
			script,
			userSettings: { theme: "dark", ...wd({ enabled: false }) },
			args: ["--tools", "read,bash,edit,write,subagent"],
		});
	});
	afterAll(async () => {
		await cli?.stop();
	});

	it("lists the command with its description", async () => {
		const commands = await cli.client.getCommands();
		const ours = commands.find((c) => c.name === "subagents-watchdog");
		expect(ours).toBeDefined();
		expect(ours?.description).toMatch(/status/);
		// Model prompts are data for our reviewer, never slash commands or prompt templates.
		expect(commands.filter((c) => c.source === "prompt" && JSON.stringify(c).includes(REPO_ROOT))).toEqual([]);
	});

	it("status, on, off and session on|off", async () => {
		expect(await say("/subagents-watchdog")).toMatch(/^Watchdog: off \(enabled = false from user/);
		expect(await say("/subagents-watchdog on")).toMatch(/Set enabled = true \(main watchdog\) in user settings/);
		expect(readJson(userSettingsPath(cli.agentDir)).subagents.watchdog.enabled).toBe(true);
		expect(readJson(userSettingsPath(cli.agentDir)).theme).toBe("dark");
		expect(await say("/subagents-watchdog status --settings")).toMatch(/^Watchdog: on \(enabled from user\)/);
		expect(await say("/subagents-watchdog session off")).toMatch(
			/Set enabled = false \(main watchdog\) for this session/,
		);
		expect(await say("/subagents-watchdog status --settings")).toMatch(
			/^Watchdog: off \(enabled = false from session; turn it on with \/subagents-watchdog session on\)/,
		);
		expect(await say("/subagents-watchdog session on")).toMatch(/for this session/);
		expect(await say("/subagents-watchdog off")).toMatch(
			/Set enabled = false \(main watchdog\) in user settings[\s\S]*session overrides set enabled = true, which still takes precedence/,
		);
	});

	it("model, session model, thinking, recommend-model and check", async () => {
		expect(await say("/subagents-watchdog check --offline")).toMatch(/Model local\/main resolves and has credentials/);
		expect(await say("/subagents-watchdog check")).toMatch(
			/Model local\/main answered a test request in (?:\d+ ms|\d+(?:\.\d)? s), at thinking off/,
		);
		expect(await say("/subagents-watchdog recommend-model")).toMatch(
			/No recommendation: every available model is of the session model's family \(local\)/,
		);
		expect(await say("/subagents-watchdog model local/reviewer:high")).toMatch(
			/main\.model = "local\/reviewer", main\.thinking = "high" \(main watchdog\) in user settings/,
		);
		expect(readJson(userSettingsPath(cli.agentDir)).subagents.watchdog.main).toEqual({
			model: "local/reviewer",
			thinking: "high",
		});
		expect(await say("/subagents-watchdog thinking medium")).toMatch(/main\.thinking = "medium"/);
		expect(await say("/subagents-watchdog recommend-model")).toMatch(
			/^Configured reviewer model: local\/reviewer:medium \(user settings\)\.\n {2}Model local\/reviewer resolves and has credentials[\s\S]*No alternative to suggest: every available model is of the session model's family/,
		);
		expect(await say("/subagents-watchdog session model local/missing")).toMatch(
			/not saved: Pi knows no model "missing" from provider "local"[\s\S]*Did you mean local\/main/,
		);
		expect(await say("/subagents-watchdog session model local/missing --force")).toMatch(
			/Saved as forced, but it will not run until Pi knows the model: Unknown model local\/missing/,
		);
		const before = cli.server.requests.length;
		expect(await say("/subagents-watchdog check")).toMatch(
			/provider "local" has no model "missing"\.\nIts models: main, reviewer\.\nNo request was made\./,
		);
		expect(cli.server.requests).toHaveLength(before);
		expect(await say("/subagents-watchdog session model inherit")).toMatch(/main\.model = "inherit"/);
		expect(await say("/subagents-watchdog status --settings")).toMatch(
			/Reviewer model: local\/main, thinking off \(inherited from the session\)/,
		);
		expect(await say("/subagents-watchdog model recommended")).toMatch(/no recommendation/);
		expect(await say("/subagents-watchdog model inherit")).toMatch(/main\.model = \(removed\)/);
		expect(readJson(userSettingsPath(cli.agentDir)).subagents.watchdog.main).toBeUndefined();
	});

	it("the subagent tool's watchdog actions", async () => {
		expect(await tool({ action: "watchdog.status" })).toMatch(/^RESULT Watchdog: on \(enabled from session\)/);
		expect(await tool({ action: "watchdog.recommend-model" })).toMatch(/^RESULT No recommendation/);
		expect(await tool({ action: "watchdog.configure", model: "local/reviewer", thinking: "high" })).toMatch(
			/main\.model = "local\/reviewer", main\.thinking = "high" \(main watchdog\) for this session/,
		);
		expect(
			await tool({ action: "watchdog.configure", scope: "user", target: "children", model: "local/reviewer:low" }),
		).toMatch(/children\.model = "local\/reviewer", children\.thinking = "low" \(child watchdogs\) in user settings/);
		expect(readJson(userSettingsPath(cli.agentDir)).subagents.watchdog.children).toEqual({
			model: "local/reviewer",
			thinking: "low",
		});
		expect(await tool({ action: "watchdog.configure", thinking: "loud" })).toMatch(
			/^RESULT [\s\S]*thinking[\s\S]*inherit/,
		);
		// The model saw the tool's description telling it to prefer the session scope.
		const declared = cli.server.requests.at(-1)?.tools?.map((t) => t.function.name);
		expect(declared).toContain("subagent");
	});

	it("argument errors come back as readable errors", async () => {
		const out = await cli.run("/subagents-watchdog thinking loud");
		expect(out[0].notifyType).toBe("error");
		expect(out[0].message).toMatch(/thinking needs a level: off, minimal, low, medium, high, xhigh, max or inherit/);
	});
});

describe("pi -p (print mode)", () => {
	it("prints status as plain text", async () => {
		const server = await startScriptedServer(() => ({ text: "unused" }));
		try {
			const agentDir = tempDir();
			writeModelsJson(agentDir, server.baseUrl, [{ id: "main" }]);
			writeJson(userSettingsPath(agentDir), {
				defaultProvider: "local",
				defaultModel: "main",
				...QUIET_PI_SETTINGS,
				...wd({ enabled: true, lsp: { maxFiles: 3 } }),
			});
			const { stdout, stderr, code } = await runPi(
				["-p", "--no-session", "-e", resolve(REPO_ROOT, "index.ts"), "/subagents-watchdog status --settings"],
				{ cwd: tempDir(), agentDir },
			);
			expect(code).toBe(0);
			const all = `${stdout}\n${stderr}`;
			expect(all).toMatch(/Watchdog: on \(enabled from user\)/);
			expect(all).toMatch(/lsp\.maxFiles\s+3\s+user/);
			expect(all).not.toMatch(/\x1b\[/); // plain text, no terminal styling
			expect(server.requests).toHaveLength(0); // a command is not a model call
		} finally {
			await server.close();
		}
	});
});
