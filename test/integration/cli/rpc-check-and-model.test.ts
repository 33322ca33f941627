// `check` calling the reviewer model, model references refused when Pi does not know them, and
// `recommend-model` once a model is configured: through the real `pi --mode rpc`, against a
// scripted OpenAI-compatible server that records every request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { readJson, userSettingsPath, wd } from "../../support/settings-files.ts";

describe("pi --mode rpc: check, unknown models, recommend-model", () => {
	let cli: CliSession;
	/** What the reviewer model's endpoint answers: a reply, or an HTTP error. */
	let reviewerReply: Reply = { text: "ok" };
	const script = (request: ChatRequest): Reply =>
		request.model === "gpt-reviewer" ? reviewerReply : subagentCallScript(request);
	const run = async (cmd: string) => {
		const out = await cli.run(cmd);
		expect(out.length, `no notify for ${cmd}`).toBeGreaterThan(0);
		return { text: out.map((n) => n.message).join("\n"), level: out.at(-1)?.notifyType };
	};
	const say = async (cmd: string) => (await run(cmd)).text;
	const tool = async (args: Record<string, unknown>) => {
		await cli.run(`call ${JSON.stringify({ action: "watchdog.configure", ...args })}`);
		return (await cli.client.getLastAssistantText()) ?? "";
	};
	const userWatchdog = () => readJson(userSettingsPath(cli.agentDir)).subagents.watchdog;

	beforeAll(async () => {
		// "claude-main" works; "gpt-reviewer" (of another family) reviews; "gpt-max-pro" is the strongest pick.
		cli = await startCli({
			script: (request) => script(request),
			models: [
				{ id: "claude-main" },
				{ id: "gpt-reviewer", reasoning: true },
				{ id: "gpt-max-pro", reasoning: true },
				{ id: "plain" },
			],
			userSettings: wd({ enabled: false, main: { model: "local/gpt-reviewer", thinking: "high" } }),
			args: ["--tools", "read,bash,edit,write,subagent"],
		});
	});
	afterAll(async () => {
		await cli?.stop();
	});

	it("check makes exactly one small request to the reviewer model and says how long it took", async () => {
		const before = cli.server.requests.length;
		const { text, level } = await run("/subagents-watchdog check");
		expect(text).toMatch(/^Model local\/gpt-reviewer answered a test request in (?:\d+ ms|\d+(?:\.\d)? s), at thinking high\./);
		expect(level).toBe("info");
		const sent = cli.server.requests.slice(before);
		expect(sent).toHaveLength(1);
		expect(sent[0].model).toBe("gpt-reviewer");
		expect(sent[0].tools ?? []).toEqual([]);
		expect(textOf(sent[0].messages.at(-1)?.content)).toMatch(/^Reply with the single word: ok$/);
	});

	it("check --offline resolves the model and its credentials without a request", async () => {
		const before = cli.server.requests.length;
		const { text } = await run("/subagents-watchdog check --offline");
		expect(text).toMatch(/^Model local\/gpt-reviewer resolves and has credentials\.\nThinking: high\./);
		expect(cli.server.requests).toHaveLength(before);
		expect((await run("/subagents-watchdog check --now")).text).toMatch(/check takes only --offline, not "--now"/);
	});

	it("check reports the provider's error exactly, classified", async () => {
		reviewerReply = { status: 401, error: "Incorrect API key provided: test-key" };
		try {
			const before = cli.server.requests.length;
			const { text, level } = await run("/subagents-watchdog check");
			expect(text).toMatch(
				/^Model local\/gpt-reviewer resolves and has credentials, but a test request at thinking high failed after \d+ ms \(no-auth\):\n {2}.*401.*Incorrect API key provided: test-key/,
			);
			expect(text).toMatch(/check the API key, or log in again with \/login local/);
			expect(level).toBe("warning");
			expect(cli.server.requests.slice(before).map((r) => r.model)).toEqual(["gpt-reviewer"]);
			reviewerReply = { status: 429, error: "Too many requests, slow down" };
			expect(await say("/subagents-watchdog check")).toMatch(
				/failed after \d+ ms \(rate-limit\):\n.*Too many requests, slow down/,
			);
		} finally {
			reviewerReply = { text: "ok" };
		}
	});

	it("check says the level a model without thinking really runs at", async () => {
		await say("/subagents-watchdog session model local/plain:high");
		expect(await say("/subagents-watchdog check")).toMatch(
			/^Model local\/plain answered a test request in (?:\d+ ms|\d+(?:\.\d)? s), at thinking off \(high was asked for; this model does not support it\)\./,
		);
		await say("/subagents-watchdog session model local/gpt-reviewer:high");
	});

	it("refuses a model Pi does not know, naming the closest ones, unless forced", async () => {
		const before = JSON.stringify(userWatchdog());
		const typo = await run("/subagents-watchdog model local/gpt-reveiwer:low");
		expect(typo.level).toBe("error");
		expect(typo.text).toMatch(
			/^Watchdog: not saved: Pi knows no model "gpt-reveiwer" from provider "local", so local\/gpt-reveiwer cannot run\. Did you mean local\/gpt-reviewer:low\?/,
		);
		expect(typo.text).toMatch(/To save it anyway: \/subagents-watchdog model local\/gpt-reveiwer:low --force$/);
		expect(await say("/subagents-watchdog session model lcoal/gpt-reviewer")).toMatch(
			/Pi knows no provider "lcoal"[\s\S]*Did you mean local\/gpt-reviewer\?/,
		);
		expect(JSON.stringify(userWatchdog())).toBe(before);

		const forced = await say("/subagents-watchdog model local/gpt-9 --force");
		expect(forced).toMatch(
			/Set main\.model = "local\/gpt-9", main\.thinking = "off" \(main watchdog\) in user settings/,
		);
		expect(forced).toMatch(/Saved as forced, but it will not run until Pi knows the model: Unknown model local\/gpt-9/);
		expect(userWatchdog().main).toEqual({ model: "local/gpt-9", thinking: "off" });
		expect((await run("/subagents-watchdog thinking high --force")).text).toMatch(/--force goes with model/);
		await say("/subagents-watchdog model local/gpt-reviewer:high");
	});

	it("saves a known model without credentials, with the warning", async () => {
		const out = await say("/subagents-watchdog session model anthropic/claude-opus-4-5");
		expect(out).toMatch(/for this session/);
		expect(out).toMatch(
			/Saved anyway, but it will not run yet: Model anthropic\/claude-opus-4-5 is known, but provider "anthropic" has no credentials configured/,
		);
		await say("/subagents-watchdog session model local/gpt-reviewer:high");
	});

	it("the subagent tool refuses an unknown model the same way, and saves it with force", async () => {
		const refused = await tool({ model: "local/gpt-reviewr:high" });
		expect(refused).toMatch(
			/not saved: Pi knows no model "gpt-reviewr" from provider "local"[\s\S]*Did you mean local\/gpt-reviewer:high[\s\S]*call again with force: true/,
		);
		const forced = await tool({ model: "local/gpt-reviewr:high", force: true });
		expect(forced).toMatch(
			/Set main\.model = "local\/gpt-reviewr", main\.thinking = "high" \(main watchdog\) for this session[\s\S]*Saved as forced/,
		);
		await say("/subagents-watchdog session model local/gpt-reviewer:high");
	});

	it("recommend-model shows the configured model, its check, and the strongest alternative", async () => {
		const before = cli.server.requests.length;
		const text = await say("/subagents-watchdog recommend-model");
		expect(text).toMatch(
			/^Configured reviewer model: local\/gpt-reviewer:high \(session override\)\.\n {2}Model local\/gpt-reviewer resolves and has credentials\./,
		);
		expect(text).toMatch(
			/\nThe watchdog would pick local\/gpt-max-pro:high instead: the strongest authenticated model outside the session's family \(anthropic\)\.\nTo switch to it for this session: \/subagents-watchdog session model local\/gpt-max-pro:high$/,
		);
		expect(text).not.toMatch(/kept|Keeping/);
		expect(cli.server.requests).toHaveLength(before); // a recommendation is not a model call

		await say("/subagents-watchdog session model local/gpt-max-pro:high");
		expect(await say("/subagents-watchdog recommend-model")).toMatch(
			/local\/gpt-max-pro:high \(session override\)[\s\S]*\nIt is also the model the watchdog would pick itself: the strongest authenticated model/,
		);
		await say("/subagents-watchdog session model inherit");
		expect(await say("/subagents-watchdog recommend-model")).toMatch(/^Recommended: local\/gpt-max-pro:high/);
	});
});
