// Settings as a user meets them in a real Pi session: each value and where it came from, trust,
// session overrides, the commands that save to user settings, model recommendation and checks.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { bundleIsCurrent } from "../../../src/util/bundle-state.ts";
import { REPO_ROOT } from "../../support/pi-cli.ts";
import { noticeText as text, startSession } from "../../support/pi-session.ts";
import { readJson, userSettingsPath, wd } from "../../support/settings-files.ts";

describe("settings in a real session", () => {
	it("shows each effective value with its source: default, user, project, session", async () => {
		const t = await startSession({
			userSettings: {
				theme: "dark",
				...wd({ enabled: false, main: { model: "faux-reviewer/reviewer-model:high" }, lsp: { maxFiles: 5 } }),
			},
			projectSettings: wd({ lsp: { maxFiles: 9 }, stalemateRepeats: 2 }),
		});
		try {
			let status = text(await t.command("/subagents-watchdog status --settings"));
			expect(status).toMatch(/Watchdog: off \(enabled = false from user/);
			expect(status).toMatch(/Reviewer model: faux-reviewer\/reviewer-model, thinking high/);
			expect(status).toMatch(/lsp\.maxFiles\s+9\s+project/);
			expect(status).toMatch(/stalemateRepeats\s+2\s+project/);
			expect(status).toMatch(/Defaults: .*lsp\.timeoutMs=10000/s);
			expect(status).toMatch(/main\.model\s+"faux-reviewer\/reviewer-model"\s+user/);
			for (const placeholder of [
				"last review: none this session",
				"Findings:",
				"LSP:",
				"Cadence:",
				"Children:",
				"Launch rules:",
			])
				expect(status).toContain(placeholder);

			await t.command("/subagents-watchdog session on");
			await t.command("/subagents-watchdog session model inherit");
			status = text(await t.command("/subagents-watchdog status --settings"));
			expect(status).toMatch(/Watchdog: on \(enabled from session\)/);
			expect(status).toMatch(/Reviewer model: faux\/main-model, thinking off \(inherited from the session\)/);
			expect(status).toMatch(/main\.model\s+"inherit"\s+session/);
			// Session changes never touch the files.
			expect(readJson(userSettingsPath(t.agentDir)).subagents.watchdog.enabled).toBe(false);
		} finally {
			await t.dispose();
		}
	});

	it("ignores an untrusted project's settings and says so in status", async () => {
		const t = await startSession({
			trusted: false,
			userSettings: wd({ enabled: true }),
			projectSettings: wd({ enabled: false }),
		});
		try {
			const status = text(await t.command("/subagents-watchdog status --settings"));
			expect(status).toMatch(/Watchdog: on \(enabled from user\)/);
			expect(status).toMatch(/project not trusted: not read/);
			expect(status).toMatch(/Ignored:\n\s+- project \(.*settings\.json\): not read: this project is not trusted/);
		} finally {
			await t.dispose();
		}
	});

	// Also through the package's entry, which loads the prebuilt bundle when it is current: /reload evaluates it again.
	it.each([
		["src/extension.ts", undefined],
		["index.ts", join(REPO_ROOT, "index.ts")],
	])("keeps session overrides across /reload (loaded from %s)", async (_name, extensionPath) => {
		const t = await startSession({ userSettings: wd({ enabled: false }), ...(extensionPath ? { extensionPath } : {}) });
		try {
			await t.command("/subagents-watchdog session on");
			await t.command("/subagents-watchdog session thinking high");
			await t.session.reload();
			const status = text(await t.command("/subagents-watchdog status --settings"));
			expect(status).toMatch(/Watchdog: on \(enabled from session\)/);
			expect(status).toMatch(/main\.thinking\s+"high"\s+session/);
			const all = text(await t.command("/subagents-watchdog status --all"));
			if (extensionPath)
				expect(all).toMatch(bundleIsCurrent(REPO_ROOT) ? /Code: prebuilt bundle/ : /Code: TypeScript sources/);
			else expect(all).toMatch(/Code: TypeScript sources/);
		} finally {
			await t.dispose();
		}
	});

	it("writes on, off, model and thinking to user settings, keeping the file's other keys", async () => {
		// lsp: true writes the user's file exactly as given: the test compares what is in it.
		const userSettings = { theme: "dark", packages: ["npm:other"], subagents: { defaultModel: "x/y" } };
		const t = await startSession({ lsp: true, userSettings });
		try {
			await t.command("/subagents-watchdog on");
			await t.command("/subagents-watchdog model faux-reviewer/reviewer-model:medium");
			let file = readJson(userSettingsPath(t.agentDir));
			expect(file.theme).toBe("dark");
			expect(file.packages).toEqual(["npm:other"]);
			expect(file.subagents.defaultModel).toBe("x/y");
			expect(file.subagents.watchdog).toEqual({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model", thinking: "medium" },
			});
			await t.command("/subagents-watchdog thinking low");
			await t.command("/subagents-watchdog off");
			file = readJson(userSettingsPath(t.agentDir));
			expect(file.subagents.watchdog).toEqual({
				enabled: false,
				main: { model: "faux-reviewer/reviewer-model", thinking: "low" },
			});
			await t.command("/subagents-watchdog model inherit");
			expect(readJson(userSettingsPath(t.agentDir)).subagents.watchdog).toEqual({ enabled: false });
		} finally {
			await t.dispose();
		}
	});

	it("says when a project setting still overrides what was saved in user settings", async () => {
		// A project may raise the reviewer's thinking above yours (tighter), never choose its model.
		const t = await startSession({ projectSettings: wd({ main: { model: "faux/main-model", thinking: "xhigh" } }) });
		try {
			const out = text(await t.command("/subagents-watchdog model faux-reviewer/reviewer-model:high"));
			expect(out).toMatch(/project settings set main\.thinking = "xhigh", which still takes precedence/);
			expect(out).not.toMatch(/main\.model = "faux\/main-model"/);
			expect(out).toMatch(/saving a model does not turn it on/);
		} finally {
			await t.dispose();
		}
	});

	it("recommends and saves the strongest model of another family", async () => {
		const t = await startSession({
			mainModel: { id: "claude-sonnet-4-6", reasoning: true },
			extraProviders: [
				{
					provider: "acme-openai",
					models: [
						{ id: "gpt-5.5", reasoning: true, cost: { input: 5, output: 40, cacheRead: 0, cacheWrite: 0 } },
						{ id: "gpt-5.5-mini", reasoning: true },
					],
				},
				{
					provider: "acme-anthropic",
					models: [
						{ id: "claude-opus-4-8", reasoning: true, cost: { input: 15, output: 75, cacheRead: 0, cacheWrite: 0 } },
					],
				},
			],
		});
		try {
			const rec = text(await t.command("/subagents-watchdog recommend-model"));
			expect(rec).toMatch(/Recommended: acme-openai\/gpt-5\.5:high/);
			await t.command("/subagents-watchdog session model recommended");
			const status = text(await t.command("/subagents-watchdog status --settings"));
			expect(status).toMatch(/Reviewer model: acme-openai\/gpt-5\.5, thinking high/);
			// A configured model is shown with its check, and beside it what the watchdog would pick.
			const kept = text(await t.command("/subagents-watchdog recommend-model"));
			expect(kept).toMatch(
				/^Configured reviewer model: acme-openai\/gpt-5\.5:high \(session override\)\.\n {2}Model acme-openai\/gpt-5\.5 resolves and has credentials/,
			);
			expect(kept).toMatch(/It is also the model the watchdog would pick itself/);
			await t.command("/subagents-watchdog model recommended");
			expect(readJson(userSettingsPath(t.agentDir)).subagents.watchdog.main).toEqual({
				model: "acme-openai/gpt-5.5",
				thinking: "high",
			});
		} finally {
			await t.dispose();
		}
	});

	it("model recommended saves what recommend-model picks, not the session's override", async () => {
		const t = await startSession({
			mainModel: { id: "claude-sonnet-4-6", reasoning: true },
			userSettings: wd({ main: { model: "acme-openai/gpt-5.5-mini", thinking: "low" } }),
			extraProviders: [
				{
					provider: "acme-openai",
					models: [
						{ id: "gpt-5.5", reasoning: true, cost: { input: 5, output: 40, cacheRead: 0, cacheWrite: 0 } },
						{ id: "gpt-5.5-mini", reasoning: true },
					],
				},
				{ provider: "acme-anthropic", models: [{ id: "claude-opus-4-8", reasoning: true }] },
			],
		});
		try {
			await t.command("/subagents-watchdog session model acme-anthropic/claude-opus-4-8:low");
			const rec = text(await t.command("/subagents-watchdog recommend-model"));
			expect(rec).toMatch(/The watchdog would pick acme-openai\/gpt-5\.5:high instead/);
			const saved = text(await t.command("/subagents-watchdog model recommended"));
			expect(readJson(userSettingsPath(t.agentDir)).subagents.watchdog.main).toEqual({
				model: "acme-openai/gpt-5.5",
				thinking: "high",
			});
			// The session override still decides this session, and the command says so.
			expect(saved).toMatch(/session/);
		} finally {
			await t.dispose();
		}
	});

	it("records every settings change made with the user's own commands, and a failed check, in history", async () => {
		const t = await startSession();
		try {
			await t.command("/subagents-watchdog model faux-reviewer/reviewer-model");
			await t.command("/subagents-watchdog on");
			await t.command("/subagents-watchdog session thinking low");
			await t.command("/subagents-watchdog children on");
			const changes = text(await t.command("/subagents-watchdog history --kind config-change"));
			expect(changes).toMatch(/4 events/);
			expect(changes).toContain("by user, applied: /subagents-watchdog model faux-reviewer/reviewer-model:off");
			expect(changes).toContain("by user, applied: /subagents-watchdog on");
			expect(changes).toContain("by user, applied: /subagents-watchdog session thinking low");
			expect(changes).toContain("by user, applied: /subagents-watchdog children on");
			await t.command("/subagents-watchdog session model nosuch/model-x --force");
			await t.command("/subagents-watchdog check --offline");
			const failures = text(await t.command("/subagents-watchdog history --kind failure"));
			expect(failures).toMatch(/failure +failure +check: Unknown model nosuch\/model-x/);
		} finally {
			await t.dispose();
		}
	});

	it("a settings error made mid-session is announced at the next prompt, and its fix clears the footer at once", async () => {
		const t = await startSession({ userSettings: wd({ enabled: true }) });
		try {
			expect(t.statuses.get("watchdog")).toBe("watchdog on");
			const good = JSON.stringify(readJson(userSettingsPath(t.agentDir)));
			writeFileSync(userSettingsPath(t.agentDir), '{ "subagents": { "watchdog": { "enabled": true, } }');
			t.main.setResponses([fauxAssistantMessage("ok")]);
			await t.session.prompt("hello");
			await t.session.waitForIdle();
			expect(t.notices.map((n) => n.message).join("\n")).toMatch(/Watchdog off for this session: 1 settings error/);
			expect(t.statuses.get("watchdog")).toBe("watchdog: settings error");
			writeFileSync(userSettingsPath(t.agentDir), good);
			await t.command("/subagents-watchdog status");
			expect(t.statuses.get("watchdog")).toBe("watchdog on");
		} finally {
			await t.dispose();
		}
	});

	it("status --all says where a thinking level no file names came from", async () => {
		const t = await startSession({ userSettings: wd({ main: { model: "faux-reviewer/reviewer-model" } }) });
		try {
			const status = text(await t.command("/subagents-watchdog status --all"));
			expect(status).toMatch(/main\.thinking +"off" +user \(from main\.model, which names no thinking level\)/);
		} finally {
			await t.dispose();
		}
	});

	describe("on, with no reviewer model set", () => {
		const providers = [
			{
				provider: "acme-openai",
				models: [{ id: "gpt-5.5", reasoning: true, cost: { input: 5, output: 40, cacheRead: 0, cacheWrite: 0 } }],
			},
		];
		const mainModel = { id: "claude-sonnet-4-6", reasoning: true };

		it("says so and gives the command for the recommended model (RPC and print mode)", async () => {
			const t = await startSession({ mainModel, extraProviders: providers });
			try {
				const said = text(await t.command("/subagents-watchdog on"));
				expect(said).toMatch(/No reviewer model is set, so the watchdog reviews with the session's own model/);
				expect(said).toMatch(
					/Recommended: acme-openai\/gpt-5\.5:high .*To use it: \/subagents-watchdog model recommended/,
				);
				expect(readJson(userSettingsPath(t.agentDir)).subagents.watchdog.main).toBeUndefined();
			} finally {
				await t.dispose();
			}
		});

		it("offers it in the TUI, where one choice saves it", async () => {
			const t = await startSession({
				mainModel,
				extraProviders: providers,
				mode: "tui",
				select: (_title, options) => options[0],
			});
			try {
				await t.command("/subagents-watchdog on");
				expect(t.selects[0]?.options).toEqual([
					"Use acme-openai/gpt-5.5:high (recommended)",
					"Keep the session's model",
				]);
				expect(readJson(userSettingsPath(t.agentDir)).subagents.watchdog.main).toEqual({
					model: "acme-openai/gpt-5.5",
					thinking: "high",
				});
				// With a model set, on asks nothing.
				await t.command("/subagents-watchdog on");
				expect(t.selects).toHaveLength(1);
			} finally {
				await t.dispose();
			}
		});
	});

	it("check says exactly what is missing", async () => {
		const t = await startSession({ userSettings: wd({ enabled: true, main: { model: "nosuch/model-x" } }) });
		try {
			expect(text(await t.command("/subagents-watchdog check"))).toMatch(
				/Unknown model nosuch\/model-x: Pi knows no provider "nosuch"\.\nKnown providers: .*faux/,
			);
			expect(text(await t.command("/subagents-watchdog session model faux-reviewer/nope"))).toMatch(
				/not saved: .*Did you mean faux-reviewer\/reviewer-model\b/,
			);
			await t.command("/subagents-watchdog session model faux-reviewer/nope --force");
			expect(text(await t.command("/subagents-watchdog check"))).toMatch(
				/provider "faux-reviewer" has no model "nope"\.\nIts models: reviewer-model/,
			);
			await t.command("/subagents-watchdog session model anthropic/claude-opus-4-5");
			expect(text(await t.command("/subagents-watchdog check"))).toMatch(
				/known, but provider "anthropic" has no credentials configured[\s\S]*\/login anthropic/,
			);
			await t.command("/subagents-watchdog session model faux-reviewer/reviewer-model:xhigh");
			const offline = await t.command("/subagents-watchdog check --offline");
			expect(text(offline)).toMatch(/resolves and has credentials/);
			expect(offline[0].level).toBe("info");
			t.reviewer.setResponses([fauxAssistantMessage("ok")]);
			const ok = await t.command("/subagents-watchdog check");
			expect(text(ok)).toMatch(
				/^Model faux-reviewer\/reviewer-model answered a test request in (?:\d+ ms|\d+(?:\.\d)? s), at thinking /,
			);
			expect(ok[0].level).toBe("info");
			expect(t.reviewer.getPendingResponseCount()).toBe(0);
		} finally {
			await t.dispose();
		}
	});
});
