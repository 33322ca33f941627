// The fleet's states from transcript tails: Pi session lines read by scan's reader, then
// classified with the clock. Never idle on a guess: unclear tails are unknown, with the reason.
import { describe, expect, it } from "vitest";
import { classifyTail } from "../../../src/fleet/classify.ts";
import { parseSessionLines } from "../../../src/scan/read-session.ts";

const MIN = 60_000;
const TIMES = { stallMs: 3 * MIN, dormantMs: 24 * 60 * MIN };
const NOW = Date.parse("2026-12-01T12:00:00Z");

let n = 0;
const line = (message: Record<string, unknown>) =>
	JSON.stringify({ type: "message", id: `e${++n}`, parentId: null, timestamp: "2026-12-01T11:00:00Z", message });
const user = (text: string) => line({ role: "user", content: [{ type: "text", text }] });
const say = (text: string) => line({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });
const call = (id: string, name: string, args: Record<string, unknown>) =>
	line({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], stopReason: "toolUse" });
const result = (id: string, name: string, text: string, isError = false) =>
	line({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError });
const header = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-12-01T10:00:00Z", cwd: "/w" });

function classify(
	lines: string[],
	quietMs: number,
	extra: { busy?: boolean; cut?: boolean; firstPrompt?: string } = {},
) {
	const { events } = parseSessionLines("pi", [header, ...lines]);
	return classifyTail({ events, lastActivityMs: NOW - quietMs, now: NOW, times: TIMES, ...extra });
}

describe("classifyTail", () => {
	it("an announced step with no tool call after it, past the stall time, is idle with the next step", () => {
		const c = classify(
			[user("Fix the failing parser test"), say("I found the bug in parse.ts. Let me run the tests now.")],
			10 * MIN,
		);
		expect(c.state).toBe("idle");
		expect(c.kind).toBe("announced");
		expect(c.attention).toBe(true);
		expect(c.goal).toBe("Fix the failing parser test");
		expect(c.nextStep).toContain("Let me run the tests now");
	});

	it("the same stop within the stall time is not idle yet", () => {
		const c = classify([user("Fix the parser"), say("Let me run the tests now.")], 30_000);
		expect(c.state).toBe("working");
		expect(c.reason).toContain("stall");
	});

	it("asking leave to deploy is waiting (a sign-off), never idle", () => {
		const c = classify(
			[user("Prepare the release"), say("Everything is ready. Shall I deploy to production? Please approve.")],
			10 * MIN,
		);
		expect(c.state).toBe("waiting");
		expect(c.kind).toBe("sign-off");
	});

	it("a plain question to the user is waiting", () => {
		const c = classify(
			[user("Pick a colour scheme"), say("I have two palettes ready. Which of them looks better to you?")],
			10 * MIN,
		);
		expect(c.state).toBe("waiting");
	});

	it("a closing report is done", () => {
		const c = classify(
			[
				user("Add a multiply function"),
				call("c1", "write", { path: "m.ts", content: "export const m = (a, b) => a * b;" }),
				result("c1", "write", "Successfully wrote 34 bytes to m.ts"),
				say("Added multiply to m.ts. The task is complete."),
			],
			10 * MIN,
		);
		expect(c.state).toBe("done");
		expect(c.attention).toBe(false);
		expect(c.preview).toBe("The task is complete.");
	});

	it("a claim the log contradicts is idle (the work is not done)", () => {
		const c = classify(
			[
				user("Make the tests pass"),
				call("c1", "bash", { command: "npm test" }),
				result("c1", "bash", "Tests: 3 failed, 10 passed\nexit code 1", true),
				say("All tests pass now."),
			],
			10 * MIN,
		);
		expect(c.state).toBe("idle");
		expect(c.kind).toBe("claim");
	});

	it("a claim is not judged on a cut tail that lacks its prompt (the edits may be before it)", () => {
		const c = classify([say("All tests pass now.")], 10 * MIN, { cut: true, firstPrompt: "Make the tests pass" });
		expect(c.state).toBe("done");
	});

	it("a tail ending on a tool call is working while fresh, unknown once stale, never idle", () => {
		const lines = [user("Build it"), call("c1", "bash", { command: "make" })];
		expect(classify(lines, 20_000).state).toBe("working");
		const stale = classify(lines, 30 * MIN);
		expect(stale.state).toBe("unknown");
		expect(stale.reason).toContain("tool call");
	});

	it("a prompt with no reply is unknown once stale", () => {
		expect(classify([user("Hello?")], 30 * MIN).state).toBe("unknown");
	});

	it("a run that ended on a provider error is unknown", () => {
		const errored = line({ role: "assistant", content: [], stopReason: "error", errorMessage: "overloaded" });
		expect(classify([user("Go on"), errored], 30 * MIN).state).toBe("unknown");
	});

	it("older than the dormant time is dormant, whatever the tail says", () => {
		expect(classify([user("Fix it"), say("Let me run the tests now.")], 2 * 24 * 60 * MIN).state).toBe("dormant");
	});

	it("a live session that says it is running is working", () => {
		expect(classify([user("Fix it"), say("Let me run the tests now.")], 10 * MIN, { busy: true }).state).toBe(
			"working",
		);
	});

	it("an empty tail is unknown with the reason", () => {
		const c = classifyTail({ events: [], lastActivityMs: NOW - 10 * MIN, now: NOW, times: TIMES });
		expect(c.state).toBe("unknown");
		expect(c.reason).toContain("no readable entries");
	});

	it("takes the goal from the first prompt when the tail starts mid-session", () => {
		const c = classify([say("Let me run the tests now.")], 10 * MIN, { cut: true, firstPrompt: "Fix the parser" });
		expect(c.state).toBe("idle");
		expect(c.goal).toBe("Fix the parser");
	});
});
