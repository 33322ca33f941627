// The subagent tool's watchdog actions an agent calls in a real Pi session: configure (session by
// default, user or project scope when asked), status and recommend-model, and project scope refused
// in an untrusted project.
import { existsSync } from "node:fs";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { startSession, toolResultTexts } from "../../support/pi-session.ts";
import { projectSettingsPath, readJson, userSettingsPath, wd } from "../../support/settings-files.ts";

describe("subagent tool watchdog actions", () => {
	it("configures the session by default, and user or project scope only when asked", async () => {
		const t = await startSession({ lsp: true, userSettings: wd({ enabled: true }) }); // the user file as given
		const { results, capture } = toolResultTexts();
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
