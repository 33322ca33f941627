// Unfinished stops and claims in a real in-process Pi session: an announced step is nudged and
// the agent carries on; the cooldown and the cap bound the nudges; a sign-off is shown and not
// nudged; policy handsoff shows claims and stops and never delivers them (reviews and loops still
// do), policy off leaves them out; a false claim goes back to the agent; with
// idle.model the nudge is the one that model wrote, and any failure falls back to the template.
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textOf as text } from "../../support/openai-server.ts";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";

type Ctx = { messages: Array<{ role: string; content: unknown }> };
const allText = (ctx: unknown) => (ctx as Ctx).messages.map((m) => text(m.content)).join("\n");
const lastUser = (ctx: unknown) => {
	const messages = (ctx as Ctx).messages;
	return text(messages[messages.length - 1]?.content);
};
const call = (name: string, args: Record<string, unknown>) =>
	fauxAssistantMessage([fauxToolCall(name, args as never)], { stopReason: "toolUse" });
const customTypes = (t: { session: { sessionManager: { getEntries(): unknown[] } } }) =>
	(t.session.sessionManager.getEntries() as Array<{ customType?: string }>).map((e) => e.customType).filter(Boolean);
const notes = (t: { session: { sessionManager: { getEntries(): unknown[] } } }) =>
	(t.session.sessionManager.getEntries() as Array<{ customType?: string; data?: { text?: string } }>)
		.filter((e) => e.customType === "watchdog-note")
		.map((e) => e.data?.text ?? "");

/** The idle findings the history log recorded, with what became of each. */
const idleHistory = (agentDir: string) =>
	readFileSync(join(agentDir, "watchdog", "history.jsonl"), "utf8")
		.trim()
		.split("\n")
		.map(
			(l) => JSON.parse(l) as { kind: string; source?: string; importance?: string; fate?: string; evidence?: string },
		)
		.filter((e) => e.kind === "finding" && e.source === "idle");

const settings = (idle: Record<string, unknown>) =>
	wd({
		enabled: true,
		main: { model: "faux-reviewer/reviewer-model" },
		lsp: { enabled: false },
		idle: { main: true, ...idle },
	});

describe("unfinished stops and nudges", () => {
	it("nudges a stop on an announced step, and the agent carries on", async () => {
		const repo = makeGitRepo({ "notes.txt": "the answer is 42\n" });
		const t = await startSession({ cwd: repo, userSettings: settings({}) });
		const seen: string[] = [];
		t.main.setResponses([
			call("read", { path: "notes.txt" }),
			fauxAssistantMessage("I have read the notes. Next I'll check what the answer is."),
			(ctx: unknown) => (seen.push(lastUser(ctx)), fauxAssistantMessage("The answer in notes.txt is 42.")),
		]);
		try {
			await t.session.prompt("find the answer in notes.txt and tell me what it is");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(3);
			expect(seen[0]).toMatch(/stopped before the work was finished/);
			expect(seen[0]).toMatch(/Stopped right after announcing a next step/);
			// The nudge restates the goal, cites where the agent stopped, and names the step.
			expect(seen[0]).toMatch(/The task: find the answer in notes\.txt/);
			expect(seen[0]).toMatch(/Where you stopped: "I have read the notes\. Next I'll check what the answer is\."/);
			expect(seen[0]).toMatch(/Next step: Take the step you announced/);
			expect(customTypes(t)).toContain("watchdog-finding");
			const status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(status).toMatch(/Evidence: policy keep, 1 nudge\(s\)/);
		} finally {
			await t.dispose();
		}
	});

	it("waits out the cooldown: a second unfinished stop soon after is shown, not nudged", async () => {
		const t = await startSession({ cwd: makeGitRepo({ "a.txt": "a\n" }), userSettings: settings({}) });
		t.main.setResponses([
			fauxAssistantMessage("Let me check the file."),
			fauxAssistantMessage("Let me check the file."),
			fauxAssistantMessage("unused"),
		]);
		try {
			await t.session.prompt("look at a.txt");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(2);
			// The first went to the agent; the second, within the cooldown, only to the user (once: it repeats what was shown).
			const history = idleHistory(t.agentDir);
			expect(history.map((e) => `${e.importance} ${e.fate}`)).toEqual(["high sent to the agent", "medium duplicate"]);
		} finally {
			await t.dispose();
		}
	});

	it("stops nudging after idle.maxNudges without progress, and tells the user", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "a.txt": "a\n" }),
			userSettings: settings({ cooldownMs: 0, maxNudges: 2 }),
		});
		t.main.setResponses(Array.from({ length: 6 }, () => fauxAssistantMessage("Let me run the tests.")));
		try {
			await t.session.prompt("run the tests");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(3);
			expect(t.notices.map((n) => n.message)).toContainEqual(
				expect.stringMatching(/^Watchdog: stopped nudging this agent: 2 nudge\(s\) in a row brought no progress/),
			);
			expect(idleHistory(t.agentDir).filter((e) => e.fate === "sent to the agent")).toHaveLength(2);
		} finally {
			await t.dispose();
		}
	});

	it("shows a sign-off to the user and never nudges it", async () => {
		const t = await startSession({ cwd: makeGitRepo({ "a.txt": "a\n" }), userSettings: settings({}) });
		t.main.setResponses([
			fauxAssistantMessage("The release build is ready. Should I publish version 2.0 to npm now?"),
			fauxAssistantMessage("unused"),
		]);
		try {
			await t.session.prompt("prepare the release");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(1);
			expect(notes(t).join("\n")).toMatch(/Stopped for your decision/);
			expect(customTypes(t)).not.toContain("watchdog-finding");
		} finally {
			await t.dispose();
		}
	});

	it("policy handsoff shows an unfinished stop with the nudge it would send, and never sends it; the policy is kept in the session", async () => {
		const t = await startSession({ cwd: makeGitRepo({ "a.txt": "a\n" }), userSettings: settings({}) });
		t.main.setResponses([fauxAssistantMessage("Now I'll read a.txt."), fauxAssistantMessage("unused")]);
		try {
			const said = (await t.command("/subagents-watchdog policy handsoff")).map((n) => n.message).join("\n");
			expect(said).toMatch(
				/policy for this session: handsoff \(was keep\): claims and unfinished stops are checked and shown to you, with the nudge the agent would get; nothing of them is sent to the agent and a usage limit is flagged, never rotated; child agents' findings, verifications and launch-rule warnings are shown to you, never sent; reviews and loops go on as usual\./,
			);
			await t.session.prompt("read a.txt");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(1);
			const shown = notes(t).join("\n");
			expect(shown).toMatch(/Stopped right after announcing a next step/);
			expect(shown).toMatch(/not nudged: policy handsoff \(shown to you, never sent to the agent\)/);
			expect(shown).toMatch(/The task: read a\.txt/); // the nudge decision, for the user to see
			expect(idleHistory(t.agentDir).map((e) => `${e.importance} ${e.fate}`)).toEqual(["medium shown to you"]);
			const entries = t.session.sessionManager.getEntries() as Array<{
				customType?: string;
				data?: { overrides?: { idle?: { policy?: string } } };
			}>;
			expect(
				entries.filter((e) => e.customType === "watchdog-session-settings").at(-1)?.data?.overrides?.idle?.policy,
			).toBe("handsoff");
			const status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(status).toMatch(/Evidence: policy handsoff/);
		} finally {
			await t.dispose();
		}
	});

	it("policy handsoff holds back a contradicted claim, while the loop detector's and the boundary review's findings reach the agent", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "status.txt": "running\n", "a.txt": "a\n" }),
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, lsp: { enabled: false } }),
		});
		const seen: string[] = [];
		const see = (next: ReturnType<typeof call>) => (ctx: unknown) => (seen.push(allText(ctx)), next);
		t.main.setResponses([
			...Array.from({ length: 4 }, () => call("bash", { command: "cat status.txt" })),
			call("bash", { command: "cat status.txt" }),
			see(call("write", { path: "a.txt", content: "b\n" })),
			call("bash", { command: "npm test 2>&1 | tail -3" }),
			fauxAssistantMessage("Done. All tests pass."),
			see(fauxAssistantMessage("You are right: a.txt lost its old content; I will restore it.")),
		]);
		t.reviewer.setResponses([
			call("watchdog_warn", {
				summary: "a.txt lost its old content",
				evidence: "a.txt: a → b",
				recommendedAction: "Keep the old line",
				importance: "high",
				severity: "blocker",
				category: "correctness",
			}),
			fauxAssistantMessage("Reported."),
		]);
		try {
			await t.command("/subagents-watchdog policy handsoff");
			await t.session.prompt("update a.txt once status.txt says done, and run the tests");
			await t.session.waitForIdle();
			expect(seen[0]).toMatch(/Same bash call repeated 5 times/);
			expect(seen[1]).toMatch(/a\.txt lost its old content/);
			expect(seen[1]).not.toMatch(/Claim contradicted by the log/);
			expect(t.main.state.callCount).toBe(9);
			expect(notes(t).join("\n")).toMatch(
				/Watchdog \(not sent to the agent: policy handsoff: claims and unfinished stops are shown to you, never sent to the agent\)\n.*Claim contradicted by the log: "All tests pass\."/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("policy off leaves the session out of the claims checker and the unfinished-stop detector", async () => {
		const t = await startSession({ cwd: makeGitRepo({ "a.txt": "a\n" }), userSettings: settings({}) });
		t.main.setResponses([
			call("bash", { command: "npm test 2>&1 | tail -3" }),
			fauxAssistantMessage("All tests pass. Next I'll update the changelog."),
			fauxAssistantMessage("unused"),
		]);
		try {
			await t.command("/subagents-watchdog policy off");
			await t.session.prompt("run the tests and update the changelog");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(2);
			expect(notes(t)).toEqual([]);
			expect(customTypes(t)).not.toContain("watchdog-finding");
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(
				/policy: off \(claims and unfinished stops are not checked in this session, no nudge is sent and the model is not rotated; reviews and loops go on\)/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("does not nudge the main session by default (idle.main off), only shows the stop", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "a.txt": "a\n" }),
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, lsp: { enabled: false } }),
		});
		t.main.setResponses([fauxAssistantMessage("Let me open a.txt."), fauxAssistantMessage("unused")]);
		try {
			await t.session.prompt("open a.txt");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(1);
			expect(notes(t).join("\n")).toMatch(/not nudged: idle\.main is off/);
		} finally {
			await t.dispose();
		}
	});

	it("sends a claim the log contradicts back to the agent", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "a.txt": "a\n" }),
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, lsp: { enabled: false } }),
		});
		const seen: string[] = [];
		t.main.setResponses([
			call("bash", { command: "npm test 2>&1 | tail -3" }),
			fauxAssistantMessage("Done. All tests pass."),
			(ctx: unknown) => (
				seen.push(lastUser(ctx)),
				fauxAssistantMessage("You are right: npm test failed (no package.json); nothing was verified.")
			),
		]);
		try {
			await t.session.prompt("run the tests");
			await t.session.waitForIdle();
			expect(seen[0]).toMatch(/Claim contradicted by the log: "All tests pass\."/);
			expect(seen[0]).toMatch(/the pipe hid its exit code/);
			expect(t.main.state.callCount).toBe(3);
		} finally {
			await t.dispose();
		}
	});

	it("with idle.model set, the nudge the agent receives is the one that model wrote", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "notes.txt": "the answer is 42\n" }),
			userSettings: settings({ model: "faux-reviewer/reviewer-model" }),
		});
		const seen: string[] = [];
		const asked: string[] = [];
		t.reviewer.setResponses([
			(ctx: unknown) => (
				asked.push(lastUser(ctx)),
				fauxAssistantMessage("You set out to find the answer in notes.txt and have read it. Say the answer now.")
			),
		]);
		t.main.setResponses([
			call("read", { path: "notes.txt" }),
			fauxAssistantMessage("I have read the notes. Next I'll check what the answer is."),
			(ctx: unknown) => (seen.push(lastUser(ctx)), fauxAssistantMessage("The answer in notes.txt is 42.")),
		]);
		try {
			await t.session.prompt("find the answer in notes.txt and tell me what it is");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(3);
			expect(t.reviewer.state.callCount).toBe(1);
			// The model saw the goal, the stop kind, and the agent's words fenced as data.
			expect(asked[0]).toMatch(/find the answer in notes\.txt/);
			expect(asked[0]).toMatch(/Kind: announced/);
			expect(asked[0]).toMatch(
				/<<<DATA ([0-9a-f]+): agent message>>>\nI have read the notes\. Next I'll check what the answer is\.\n<<<END DATA \1>>>/,
			);
			expect(seen[0]).toMatch(/Stopped right after announcing a next step/);
			expect(seen[0]).toMatch(/You set out to find the answer in notes\.txt and have read it\. Say the answer now\./);
			expect(seen[0]).not.toMatch(/Where you stopped:/);
		} finally {
			await t.dispose();
		}
	});

	const failures = (agentDir: string) =>
		readFileSync(join(agentDir, "watchdog", "history.jsonl"), "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l) as { kind: string; what?: string; message?: string })
			.filter((e) => e.kind === "failure" && e.what === "nudge model");

	it.each([
		["an unknown idle.model", "faux-reviewer/no-such-model", [] as string[], /no model "no-such-model"/],
		["an empty answer", "faux-reviewer/reviewer-model", [""], /no text/],
	])("falls back to the template on %s, and records the failure", async (_name, model, replies, why) => {
		const t = await startSession({ cwd: makeGitRepo({ "a.txt": "a\n" }), userSettings: settings({ model }) });
		t.reviewer.setResponses(replies.map((r) => fauxAssistantMessage(r)));
		const seen: string[] = [];
		t.main.setResponses([
			fauxAssistantMessage("Let me open a.txt."),
			(ctx: unknown) => (seen.push(lastUser(ctx)), fauxAssistantMessage("a.txt holds one line: a.")),
		]);
		try {
			await t.session.prompt("open a.txt and tell me what it says");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(2);
			expect(seen[0]).toMatch(/The task: open a\.txt and tell me what it says/);
			expect(seen[0]).toMatch(/Where you stopped: "Let me open a\.txt\."/);
			const recorded = failures(t.agentDir);
			expect(recorded).toHaveLength(1);
			expect(recorded[0]?.message).toMatch(why);
			expect(recorded[0]?.message).toMatch(/the nudge uses the template/);
		} finally {
			await t.dispose();
		}
	});

	it("falls back to the template when the model does not answer within agentEndTimeoutMs", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "a.txt": "a\n" }),
			userSettings: wd({
				enabled: true,
				agentEndTimeoutMs: 1000,
				main: { model: "faux-reviewer/reviewer-model" },
				lsp: { enabled: false },
				idle: { main: true, model: "faux-reviewer/reviewer-model" },
			}),
		});
		// The model answers only once the watchdog has given up on it.
		const late = (_ctx: unknown, options: { signal?: AbortSignal } | undefined) =>
			new Promise<ReturnType<typeof fauxAssistantMessage>>((resolve) => {
				const answer = () => resolve(fauxAssistantMessage("too late"));
				if (!options?.signal) setTimeout(answer, 5000);
				else options.signal.addEventListener("abort", answer, { once: true });
			});
		t.reviewer.setResponses([late as never]);
		const seen: string[] = [];
		t.main.setResponses([
			fauxAssistantMessage("Let me open a.txt."),
			(ctx: unknown) => (seen.push(lastUser(ctx)), fauxAssistantMessage("It says a.")),
		]);
		try {
			const started = Date.now();
			await t.session.prompt("open a.txt");
			await t.session.waitForIdle();
			expect(Date.now() - started).toBeLessThan(10_000);
			expect(seen[0]).toMatch(/Where you stopped: "Let me open a\.txt\."/);
			expect(failures(t.agentDir)[0]?.message).toMatch(/no nudge within 1000 ms/);
		} finally {
			await t.dispose();
		}
	});
});
