// An agent changing its own watchdog through the `subagent` tool, in a real in-process session
// whose UI answers the question: lowering oversight needs the user's yes (a select whose first,
// default choice keeps the watchdog as it is); anything else goes through without a question;
// every change is announced and recorded. While the question is open (the agent's own or a
// child's), the session's live entry says it waits on the user, for the fleet view.
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { type SessionOptions, startSession, type TestSession, toolResultTexts } from "../../support/pi-session.ts";
import { readJson, userSettingsPath, wd } from "../../support/settings-files.ts";
import { until } from "../../support/subagent-cli.ts";
import { writeAgent } from "../../support/nested-cli.ts";
import { type LiveEntry, listLive } from "../../../src/fleet/live.ts";

/** The main model is a Claude; the user's reviewer is a GPT at high, on a second provider. */
const WATCHED: SessionOptions = {
	mode: "tui",
	mainModel: { id: "claude-sonnet-4-6", reasoning: true },
	extraProviders: [
		{
			provider: "acme",
			models: [
				{ id: "gpt-5.5", reasoning: true },
				{ id: "claude-opus-4-8", reasoning: true },
			],
		},
	],
	userSettings: wd({ enabled: true, main: { model: "acme/gpt-5.5", thinking: "high" } }),
};

/** Has the main model make each `subagent` call in turn; returns the tool results' text. */
async function agentCalls(t: TestSession, calls: Array<Record<string, unknown>>): Promise<string[]> {
	const { results, capture } = toolResultTexts();
	t.main.setResponses([
		...calls.map((args, i) => (ctx: Parameters<typeof capture>[0]) => {
			if (i > 0) capture(ctx);
			return fauxAssistantMessage([fauxToolCall("subagent", { action: "watchdog.configure", ...args })], {
				stopReason: "toolUse",
			});
		}),
		(ctx: Parameters<typeof capture>[0]) => (capture(ctx), fauxAssistantMessage("done")),
	]);
	await t.session.prompt("adjust the watchdog");
	return results;
}

/** The user picks the choice that lets the agent lower oversight. */
const allow = (_title: string, options: string[]) => options.find((o) => /^Yes/.test(o));
/** The user presses Enter on the first (default) choice. */
const first = (_title: string, options: string[]) => options[0];
const never = () => expect.fail("no question may be asked");

/** A TUI session whose user answers (the first choice) only once its live entry says it waits on them. */
async function sessionAnsweringOnceWaiting(): Promise<{ t: TestSession; seen: () => LiveEntry["waiting"] }> {
	let seen: LiveEntry["waiting"];
	let agentDir = "";
	const answer = async (title: string, options: string[]) => {
		await until("the live entry to say it waits", () => listLive(agentDir).some((e) => e.waiting));
		seen = listLive(agentDir).find((e) => e.waiting)?.waiting;
		return first(title, options);
	};
	const t = await startSession({ ...WATCHED, select: answer as never });
	agentDir = t.agentDir;
	return { t, seen: () => seen };
}

function changeEntries(t: TestSession): any[] {
	return t.session.sessionManager
		.getEntries()
		.filter((e: any) => e.type === "custom" && e.customType === "watchdog-config-change")
		.map((e: any) => e.data);
}

describe("an agent lowering its own oversight in the TUI", () => {
	it("asks the user; yes applies the change and announces it", async () => {
		const t = await startSession({ ...WATCHED, select: allow });
		try {
			const [result] = await agentCalls(t, [{ enabled: false, scope: "user" }]);
			expect(t.confirms).toEqual([]);
			expect(t.selects).toHaveLength(1);
			expect(t.selects[0].title).toMatch(/\/subagents-watchdog off[\s\S]*turns the main watchdog off/);
			expect(t.selects[0].options).toHaveLength(2);
			expect(t.selects[0].options[0]).toMatch(/^No, keep the watchdog as it is/);
			expect(readJson(userSettingsPath(t.agentDir)).subagents.watchdog.enabled).toBe(false);
			expect(result).toMatch(
				/^The user confirmed this change, which lowers the watchdog's oversight \(turns the main watchdog off\)\.\nSet enabled = false \(main watchdog\) in user settings/,
			);
			expect(t.notices.map((n) => n.message).join("\n")).toMatch(
				/Applied the agent's change you confirmed \(it lowers oversight: turns the main watchdog off\)/,
			);
			expect(changeEntries(t)).toEqual([
				{
					at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
					by: "agent",
					request: { scope: "user", target: "main", enabled: false },
					lowered: ["turns the main watchdog off"],
					outcome: "applied",
					command: "/subagents-watchdog off",
				},
			]);
		} finally {
			await t.dispose();
		}
	});

	it("the first choice (Enter) leaves everything as it was, and tells the agent only the user can make the change", async () => {
		const t = await startSession({ ...WATCHED, select: first });
		const fileBefore = readJson(userSettingsPath(t.agentDir));
		try {
			const results = await agentCalls(t, [
				{ model: "faux/claude-sonnet-4-6", scope: "user" },
				{ model: "acme/claude-opus-4-8", thinking: "high" },
			]);
			expect(t.selects).toHaveLength(2);
			expect(readJson(userSettingsPath(t.agentDir))).toEqual(fileBefore);
			const status = await t.command("/subagents-watchdog status --settings");
			expect(status.map((n) => n.message).join("\n")).toMatch(/Reviewer model: acme\/gpt-5\.5, thinking high/);

			expect(results[0]).toMatch(
				/^Not changed: the user declined this change, which lowers the watchdog's oversight \(the main watchdog's reviewer would be the session's own model \(faux\/claude-sonnet-4-6\)/,
			);
			expect(results[0]).toMatch(/reviewer thinking drops from high to off/);
			expect(results[0]).toMatch(
				/Only the user can make it, with:\n {2}\/subagents-watchdog model faux\/claude-sonnet-4-6\nDo not ask again/,
			);
			expect(results[1]).toMatch(
				/declined[\s\S]*acme\/claude-opus-4-8 is of the same family \(anthropic\)[\s\S]*\/subagents-watchdog session model acme\/claude-opus-4-8:high/,
			);

			const entries = changeEntries(t);
			expect(entries.map((e) => e.outcome)).toEqual(["declined", "declined"]);
			expect(entries[0].command).toBe("/subagents-watchdog model faux/claude-sonnet-4-6");
			expect(entries[1].lowered).toHaveLength(1);
			expect(t.notices.filter((n) => /You declined the agent's change/.test(n.message))).toHaveLength(2);
		} finally {
			await t.dispose();
		}
	});

	it("while the question is open, the session's live entry says it waits on the user (for the fleet view)", async () => {
		const { t, seen } = await sessionAnsweringOnceWaiting();
		try {
			await agentCalls(t, [{ enabled: false, scope: "user" }]);
			expect(seen()?.what).toMatch(/^waiting on you: Let the agent lower the watchdog's oversight\?/);
			await until("the wait to leave the live entry", () => listLive(t.agentDir).every((e) => !e.waiting));
			expect(listLive(t.agentDir)).toHaveLength(1);
		} finally {
			await t.dispose();
		}
	});

	it("a child's question to the user shows in the parent session's live entry while it is open", async () => {
		const { t, seen } = await sessionAnsweringOnceWaiting();
		try {
			writeAgent(t, "tuner", {}, "read, subagent");
			t.main.setResponses([
				fauxAssistantMessage([fauxToolCall("subagent", { agent: "tuner", task: "turn the watchdog off" })], {
					stopReason: "toolUse",
				}),
				fauxAssistantMessage(
					[fauxToolCall("subagent", { action: "watchdog.configure", enabled: false, scope: "user" })],
					{ stopReason: "toolUse" },
				),
				fauxAssistantMessage("The user declined."),
				fauxAssistantMessage("done"),
			]);
			await t.session.prompt("have the tuner adjust the watchdog");
			await t.session.waitForIdle();
			expect(t.selects).toHaveLength(1);
			expect(seen()?.what).toMatch(/^waiting on you: Let the tuner child agent lower the watchdog's oversight\?/);
			await until("the wait to leave the live entry", () => listLive(t.agentDir).every((e) => !e.waiting));
		} finally {
			await t.dispose();
		}
	});
});

describe("an agent change that does not lower oversight", () => {
	it("applies without a question, and is still announced and recorded", async () => {
		// lsp: true writes the user's file exactly as given: the test compares what is in it.
		const settings = { lsp: true, userSettings: wd({ enabled: false }) };
		const t = await startSession({ ...WATCHED, ...settings, select: never, confirm: never });
		try {
			const results = await agentCalls(t, [
				{ enabled: true, scope: "user" },
				{ model: "acme/gpt-5.5", thinking: "high" },
				{ scope: "user", target: "children", enabled: true },
			]);
			expect(t.selects).toEqual([]);
			expect(results[0]).toMatch(
				/^Set enabled = true \(main watchdog\) in user settings[\s\S]*\nThe user has been told of this change\.$/,
			);
			expect(results[1]).toMatch(
				/^Set main\.model = "acme\/gpt-5\.5", main\.thinking = "high" \(main watchdog\) for this session/,
			);
			expect(readJson(userSettingsPath(t.agentDir)).subagents.watchdog).toEqual({
				enabled: true,
				children: { enabled: true },
			});
			const status = await t.command("/subagents-watchdog status --settings");
			expect(status.map((n) => n.message).join("\n")).toMatch(/Reviewer model: acme\/gpt-5\.5, thinking high/);
			expect(
				t.notices.filter((n) => n.message.startsWith("The agent changed the watchdog settings: Set ")),
			).toHaveLength(3);
			expect(changeEntries(t).map((e) => [e.outcome, e.lowered, e.command])).toEqual([
				["applied", [], "/subagents-watchdog on"],
				["applied", [], "/subagents-watchdog session model acme/gpt-5.5:high"],
				["applied", [], "/subagents-watchdog children on"],
			]);
		} finally {
			await t.dispose();
		}
	});

	it("the user's own command lowers oversight without a question", async () => {
		const t = await startSession({ ...WATCHED, select: never, confirm: never });
		try {
			await t.command("/subagents-watchdog off");
			await t.command("/subagents-watchdog session model faux/claude-sonnet-4-6");
			expect(t.selects).toEqual([]);
			expect(readJson(userSettingsPath(t.agentDir)).subagents.watchdog.enabled).toBe(false);
			expect(changeEntries(t)).toEqual([]);
		} finally {
			await t.dispose();
		}
	});
});

describe("outside the TUI (the in-process session in RPC mode)", () => {
	it("refuses a lowering change without asking, even though this UI could answer", async () => {
		const t = await startSession({ ...WATCHED, mode: "rpc", select: allow });
		try {
			const [result] = await agentCalls(t, [{ thinking: "minimal", target: "main" }]);
			expect(t.selects).toEqual([]);
			expect(result).toMatch(
				/^Not changed: this change lowers the watchdog's oversight \(the main watchdog's reviewer thinking drops from high to minimal\)\.\nAn agent may make such a change only with the user's confirmation, and in rpc mode there is no way to ask\. Only the user can make it, with:\n {2}\/subagents-watchdog session thinking minimal\n/,
			);
			expect(changeEntries(t).map((e) => e.outcome)).toEqual(["refused"]);
			expect(t.notices.find((n) => n.level === "warning")?.message).toMatch(
				/^Refused a change the agent asked for[\s\S]*\/subagents-watchdog session thinking minimal/,
			);
		} finally {
			await t.dispose();
		}
	});
});
