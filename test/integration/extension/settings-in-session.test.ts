// Settings as a user meets them in a real Pi session: files, trust, session overrides,
// bad input, and the tool actions an agent calls.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { bundleIsCurrent } from "../../../src/util/bundle-state.ts";
import { REPO_ROOT } from "../../support/pi-cli.ts";
import { startSession } from "../../support/pi-session.ts";
import { projectSettingsPath, readJson, userSettingsPath, wd } from "../../support/settings-files.ts";

const text = (notices: Array<{ message: string }>) => notices.map((n) => n.message).join("\n");

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

describe("bad settings never break the session", () => {
	const cases: Array<[string, { userSettingsText?: string; userSettings?: Record<string, unknown> }, RegExp]> = [
		[
			"malformed JSON",
			{ userSettingsText: '{\n  "subagents": { "watchdog": { "enabled": true, }\n}' },
			/settings\.json: invalid JSON at line 2, column \d+/,
		],
		[
			"a wrong type",
			{ userSettings: wd({ enabled: "yes" }) },
			/subagents\.watchdog\.enabled: Invalid input: expected boolean/,
		],
		[
			"an out-of-range value",
			{ userSettings: wd({ enabled: true, cadence: { everyNTools: 2 } }) },
			/subagents\.watchdog\.cadence\.everyNTools: must be 0, false or null \(off\), or a whole number of tool results of at least 5/,
		],
		[
			"a bad model reference",
			{ userSettings: wd({ enabled: true, main: { model: "open ai/opus" } }) },
			/subagents\.watchdog\.main\.model: must be "inherit", a model reference/,
		],
		[
			"a bare model id Pi does not have",
			{ userSettings: wd({ enabled: true, main: { model: "opus" } }) },
			/subagents\.watchdog\.main\.model: model "opus" \(no provider given\) is not known to Pi/,
		],
		[
			"a non-object watchdog",
			{ userSettings: { subagents: { watchdog: [] } } },
			/"subagents\.watchdog" must be an object, not an array/,
		],
	];
	// Also through the package's entry: the prebuilt bundle must carry zod's English messages and load jsonc-parser
	// when a file does not parse.
	const entries: Array<[string, string | undefined]> = [
		["src/extension.ts", undefined],
		["index.ts", join(REPO_ROOT, "index.ts")],
	];
	for (const [name, input, pattern] of cases)
		for (const [entry, extensionPath] of entries)
			it(`reports ${name} once, turns the watchdog off, and the session keeps working (loaded from ${entry})`, async () => {
				const t = await startSession({ ...input, ...(extensionPath ? { extensionPath } : {}) });
				try {
					const warnings = t.notices.filter((n) => n.level === "warning");
					expect(warnings).toHaveLength(1);
					expect(warnings[0].message).toMatch(/Watchdog off for this session: 1 settings error/);
					expect(warnings[0].message).toMatch(pattern);
					const status = text(await t.command("/subagents-watchdog status --settings"));
					expect(status).toMatch(/Watchdog: off for this session: the settings have 1 error/);
					expect(status).toMatch(/Config errors:\n\s+- user \(/);
					expect(status).toMatch(pattern);
					// No second notice for the same errors.
					expect(t.notices.filter((n) => n.level === "warning")).toHaveLength(1);
					if (extensionPath)
						expect(text(await t.command("/subagents-watchdog status --all"))).toMatch(
							bundleIsCurrent(REPO_ROOT) ? /Code: prebuilt bundle/ : /Code: TypeScript sources/,
						);
					t.main.setResponses([fauxAssistantMessage("still here")]);
					await t.session.prompt("hello");
					expect(t.session.getLastAssistantText()).toBe("still here");
				} finally {
					await t.dispose();
				}
			});

	it("warns about an unknown key in status without turning the watchdog off", async () => {
		const t = await startSession({ userSettings: wd({ enabled: true, cadense: { everyNTools: 5 } }) });
		try {
			expect(t.notices.filter((n) => n.level === "warning")).toHaveLength(0);
			const status = text(await t.command("/subagents-watchdog status --settings"));
			expect(status).toMatch(/Watchdog: on/);
			expect(status).toMatch(/Warnings:\n\s+- user .*unknown key subagents\.watchdog\.cadense is ignored/);
		} finally {
			await t.dispose();
		}
	});

	it("refuses to save into a malformed settings file and says how to fix it", async () => {
		const t = await startSession({ userSettingsText: '{ "theme": "dark" ' });
		try {
			const out = await t.command("/subagents-watchdog on");
			expect(out[0].level).toBe("error");
			expect(out[0].message).toMatch(/not saved: .*settings\.json is not valid JSON .*fix the file first/);
		} finally {
			await t.dispose();
		}
	});

	it("rejects an unknown subcommand with the usage", async () => {
		const t = await startSession();
		try {
			const out = await t.command("/subagents-watchdog enable");
			expect(out[0].level).toBe("error");
			expect(out[0].message).toMatch(/unknown subcommand "enable"/);
		} finally {
			await t.dispose();
		}
	});
});

describe("subagent tool watchdog actions", () => {
	it("configures the session by default, and user or project scope only when asked", async () => {
		const t = await startSession({ lsp: true, userSettings: wd({ enabled: true }) }); // the user file as given
		const results: string[] = [];
		const capture = (context: { messages: Array<{ role: string; content: unknown }> }) => {
			const last = context.messages.at(-1);
			if (last?.role === "toolResult")
				results.push((last.content as Array<{ text?: string }>).map((c) => c.text ?? "").join(""));
		};
		t.main.setResponses([
			fauxAssistantMessage(
				[fauxToolCall("subagent", { action: "watchdog.configure", model: "faux-reviewer/reviewer-model:high" })],
				{ stopReason: "toolUse" },
			),
			(ctx) => (
				capture(ctx),
				fauxAssistantMessage(
					[
						fauxToolCall("subagent", {
							action: "watchdog.configure",
							scope: "user",
							target: "worker",
							model: "faux/main-model",
							thinking: "low",
						}),
					],
					{ stopReason: "toolUse" },
				)
			),
			(ctx) => (
				capture(ctx),
				fauxAssistantMessage(
					[
						fauxToolCall("subagent", {
							action: "watchdog.configure",
							scope: "project",
							target: "children",
							enabled: true,
						}),
					],
					{ stopReason: "toolUse" },
				)
			),
			(ctx) => (
				capture(ctx),
				fauxAssistantMessage([fauxToolCall("subagent", { action: "watchdog.status" })], { stopReason: "toolUse" })
			),
			(ctx) => (
				capture(ctx),
				fauxAssistantMessage([fauxToolCall("subagent", { action: "watchdog.recommend-model" })], {
					stopReason: "toolUse",
				})
			),
			(ctx) => (
				capture(ctx),
				fauxAssistantMessage(
					[fauxToolCall("subagent", { action: "watchdog.configure", target: "bad role!", model: "a/b" })],
					{ stopReason: "toolUse" },
				)
			),
			(ctx) => (capture(ctx), fauxAssistantMessage("done")),
		]);
		try {
			await t.session.prompt("configure the watchdog");
			expect(results).toHaveLength(6);
			expect(results[0]).toMatch(
				/Set main\.model = "faux-reviewer\/reviewer-model", main\.thinking = "high" \(main watchdog\) for this session/,
			);
			expect(results[1]).toMatch(
				/children\.overrides\.worker\.model = "faux\/main-model", children\.overrides\.worker\.thinking = "low" \(worker role\) in user settings/,
			);
			expect(readJson(userSettingsPath(t.agentDir)).subagents.watchdog).toEqual({
				enabled: true,
				children: { overrides: { worker: { model: "faux/main-model", thinking: "low" } } },
			});
			expect(results[2]).toMatch(/children\.enabled = true \(child watchdogs\) in project settings/);
			expect(readJson(projectSettingsPath(t.cwd))).toEqual(wd({ children: { enabled: true } }));
			expect(results[3]).toMatch(/Reviewer model: faux-reviewer\/reviewer-model, thinking high/);
			expect(results[3]).toMatch(/children\.enabled\s+true\s+project/);
			expect(results[4]).toMatch(/^Configured reviewer model: faux-reviewer\/reviewer-model:high \(session override\)/);
			expect(results[5]).toMatch(/"bad role!" is not a target/);
		} finally {
			await t.dispose();
		}
	});

	it("refuses project scope in an untrusted project", async () => {
		const t = await startSession({ trusted: false });
		let result = "";
		t.main.setResponses([
			fauxAssistantMessage(
				[fauxToolCall("subagent", { action: "watchdog.configure", scope: "project", enabled: true })],
				{ stopReason: "toolUse" },
			),
			(ctx) => {
				const last = ctx.messages.at(-1) as { content: Array<{ text?: string }>; isError?: boolean };
				result = `${last.isError}:${last.content.map((c) => c.text).join("")}`;
				return fauxAssistantMessage("ok");
			},
		]);
		try {
			await t.session.prompt("turn it on for the project");
			expect(result).toMatch(/^true:.*not trusted/);
			expect(existsSync(projectSettingsPath(t.cwd))).toBe(false);
		} finally {
			await t.dispose();
		}
	});
});
