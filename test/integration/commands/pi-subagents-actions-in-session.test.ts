// pi-subagents' command and action shapes in real Pi sessions (faux models): where they mean
// the same thing here, they do it; nothing is saved under a role literally named "child".
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { startSession, type TestSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { text, toolUse } from "../review/review-helpers.ts";
import { subagentResult } from "../children/launch-once.ts";

let open: TestSession | undefined;
afterEach(async () => {
	await open?.dispose();
	open = undefined;
});

/** The parent's model calls the subagent tool once with `args`; returns the tool result's text and error flag. */
async function action(t: TestSession, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
	t.main.setResponses([toolUse("subagent", args), fauxAssistantMessage("ok")]);
	await t.session.prompt("do it");
	await t.session.waitForIdle();
	const result = subagentResult(t);
	return { text: text(result?.content), isError: Boolean(result?.isError) };
}

const statusAll = async (t: TestSession) =>
	(await t.command("/subagents-watchdog status --all")).map((n) => n.message).join("\n");

describe("subagent actions in pi-subagents' shape", () => {
	it('watchdog.configure {target: "child", agent} sets that role, never a role named "child"', async () => {
		const t = (open = await startSession({ userSettings: wd({ enabled: true }) }));
		const out = await action(t, {
			action: "watchdog.configure",
			target: "child",
			agent: "worker",
			enabled: true,
			scope: "session",
		});
		expect(out.isError).toBe(false);
		const status = await statusAll(t);
		expect(status).toMatch(/children\.overrides\.worker\.enabled\s+true\s+session/);
		expect(status).not.toContain("children.overrides.child");
	});

	it('target "child" without agent is refused, saying what is missing', async () => {
		const t = (open = await startSession({ userSettings: wd({ enabled: true }) }));
		const out = await action(t, { action: "watchdog.configure", target: "child", enabled: true });
		expect(out.isError).toBe(true);
		expect(out.text).toContain('target "child" needs agent');
		expect(await statusAll(t)).not.toContain("children.overrides");
	});

	it("watchdog.status gives the agent what is not default, not every default", async () => {
		const t = (open = await startSession({ userSettings: wd({ enabled: true, lsp: { maxFiles: 7 } }) }));
		const out = await action(t, { action: "watchdog.status" });
		expect(out.text).toMatch(/lsp\.maxFiles +7 +user/);
		expect(out.text).not.toContain("Defaults:");
		expect(out.text).toContain("Every other setting has its default");
	});

	it("watchdog.configure takes thinking false as off", async () => {
		const t = (open = await startSession({
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" } }),
		}));
		const out = await action(t, { action: "watchdog.configure", thinking: false, scope: "session" });
		expect(out.isError).toBe(false);
		expect(out.text).toContain('main.thinking = "off"');
	});

	it("watchdog.check says whether the reviewer resolves and has credentials, without a model call", async () => {
		const t = (open = await startSession({
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" } }),
		}));
		const out = await action(t, { action: "watchdog.check" });
		expect(out.isError).toBe(false);
		expect(out.text).toContain("Model faux-reviewer/reviewer-model resolves and has credentials.");
		expect(t.reviewer.state.callCount).toBe(0);
	});
});

describe("/subagents-watchdog test concern|blocker", () => {
	it("shows a sample finding through the sink, marked as a test, never sent to the agent", async () => {
		const t = (open = await startSession({ userSettings: wd({ enabled: true, severityThreshold: "blocker" }) }));
		const said = (await t.command("/subagents-watchdog test concern Check the renderer"))
			.map((n) => n.message)
			.join("\n");
		expect(said).toContain("Showed a test concern");
		const notes = t.session.sessionManager.getEntries().filter((e: any) => e.customType === "watchdog-note") as any[];
		expect(notes).toHaveLength(1);
		expect(notes[0].data.text).toContain("Test finding: Check the renderer");
		expect(notes[0].data.finding.severity).toBe("concern");
		expect(t.main.state.callCount).toBe(0);
		const status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
		expect(status).toMatch(/concern \(shown to you\) \[test\] Test finding: Check the renderer/);
		const usage = (await t.command("/subagents-watchdog test warning")).map((n) => n.message).join("\n");
		expect(usage).toContain("test takes concern or blocker");
	});
});
