// The agent editing a settings file with its own tools in a real in-process session (issue 23,
// item 13): in the TUI the user is asked, the first (default) choice keeps the watchdog as it
// was; a trusted project's file the agent edits is watched as the user's is.
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { type SessionOptions, startSession, type TestSession } from "../../support/pi-session.ts";
import { projectSettingsPath, userSettingsPath, wd } from "../../support/settings-files.ts";

const WATCHED: SessionOptions = {
	mode: "tui",
	userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" } }),
};

/** The main model writes `path` with `content`, then stops. */
async function agentWrites(t: TestSession, path: string, content: unknown): Promise<void> {
	t.main.setResponses([
		fauxAssistantMessage([fauxToolCall("write", { path, content: `${JSON.stringify(content, null, 2)}\n` })], {
			stopReason: "toolUse",
		}),
		fauxAssistantMessage("done"),
	]);
	t.reviewer.setResponses([fauxAssistantMessage("Nothing to report.")]);
	await t.session.prompt("tidy up the settings");
}

const statusOf = async (t: TestSession) =>
	(await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");

describe("the agent turning its watchdog off by writing the user's settings file, in the TUI", () => {
	it("asks with the safe answer first; Enter keeps the watchdog as it was", async () => {
		const t = await startSession({ ...WATCHED, select: (_title, options) => options[0] });
		try {
			await agentWrites(t, userSettingsPath(t.agentDir), wd({ enabled: false }));
			expect(t.selects).toHaveLength(1);
			expect(t.selects[0].title).toMatch(/the agent's write call #1 of this run[\s\S]*turns the main watchdog off/);
			expect(t.selects[0].options[0]).toMatch(/^No, keep the watchdog as it is/);
			expect(
				t.notices.some(
					(n) =>
						n.level === "warning" &&
						/^Held back a change to .*settings\.json made by the agent's write call #1/.test(n.message),
				),
			).toBe(true);
			expect(await statusOf(t)).toMatch(/Held settings changes[\s\S]*turns the main watchdog off/);
			expect(t.statuses.get("watchdog")).toBe("watchdog: settings change held");
		} finally {
			await t.dispose();
		}
	});

	it("lets the change take effect when the user picks yes", async () => {
		const t = await startSession({ ...WATCHED, select: (_title, options) => options.find((o) => o.startsWith("Yes")) });
		try {
			await agentWrites(t, userSettingsPath(t.agentDir), wd({ enabled: false }));
			expect(t.selects).toHaveLength(1);
			expect(t.notices.some((n) => /^Accepted the change to .*settings\.json/.test(n.message))).toBe(true);
			expect(await statusOf(t)).not.toMatch(/Held settings changes/);
		} finally {
			await t.dispose();
		}
	});
});

describe("a trusted project's settings file the agent edits", () => {
	it("holds back dropping the project's cadence reviews", async () => {
		const t = await startSession({ ...WATCHED, mode: "rpc", projectSettings: wd({ cadence: { everyNTools: 5 } }) });
		try {
			expect(await statusOf(t)).toMatch(/cadence\.everyNTools[^\n]*5/);
			await agentWrites(t, projectSettingsPath(t.cwd), wd({}));
			const held = t.notices.find((n) => /^Held back/.test(n.message));
			expect(held?.message).toMatch(
				/\.pi\/settings\.json made by the agent's write call #1 of this run[\s\S]*turns cadence reviews off \(cadence\.everyNTools\)[\s\S]*\/subagents-watchdog settings accept/,
			);
			expect(t.selects).toEqual([]);
			expect(await statusOf(t)).toMatch(/cadence\.everyNTools[^\n]*5/);
			expect((await t.command("/subagents-watchdog settings accept")).map((n) => n.message).join("\n")).toMatch(
				/^Accepted the change to .*\.pi\/settings\.json/,
			);
			expect(await statusOf(t)).not.toMatch(/cadence\.everyNTools[^\n]*5/);
		} finally {
			await t.dispose();
		}
	});
});
