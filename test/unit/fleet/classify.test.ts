// The fleet's states from transcript tails: Pi session lines read by scan's reader, then
// classified with the clock. Never idle on a guess: unclear tails are unknown, with the reason.
import { describe, expect, it } from "vitest";
import { classifyTail, type TailInput } from "../../../src/fleet/classify.ts";
import { type LiveEntry, liveWait } from "../../../src/fleet/live.ts";
import { stretchEvents } from "../../../src/fleet/stretch.ts";
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
	extra: Partial<Pick<TailInput, "busy" | "cut" | "firstPrompt" | "waiting">> = {},
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

	it("a live session waiting on the arbiter or the user is waiting, with what and since when, never idle", () => {
		const entry: LiveEntry = {
			pid: 1,
			key: "1-ab",
			sessionId: "s1",
			cwd: "/w",
			mailbox: "/m",
			busy: true,
			policy: "keep",
			startedAt: "2026-12-01T10:00:00Z",
			updatedAt: "2026-12-01T11:50:00Z",
			waiting: { what: "worker: waiting on the permission arbiter for write", since: "2026-12-01T11:55:00Z" },
		};
		const waiting = liveWait(entry);
		expect(waiting).toEqual({
			what: "worker: waiting on the permission arbiter for write",
			sinceMs: Date.parse("2026-12-01T11:55:00Z"),
		});
		// The same tail without the wait: idle (stalled), working (busy), dormant (old).
		const tail = [user("Fix it"), say("Let me run the tests now.")];
		for (const [quiet, busy] of [
			[10 * MIN, false],
			[10 * MIN, true],
			[2 * 24 * 60 * MIN, false],
		] as const) {
			const c = classify(tail, quiet, { busy, ...(waiting ? { waiting } : {}) });
			expect(c.state).toBe("waiting");
			expect(c.attention).toBe(true);
			expect(c.reason).toBe("worker: waiting on the permission arbiter for write (for 5m, the live session says so)");
			expect(c.goal).toBe("Fix it");
		}
		// A wait the entry does not hold well-formed is no wait: the tail decides.
		for (const bad of [{ what: "", since: entry.updatedAt }, { what: "x", since: "never" }, "waiting"])
			expect(liveWait({ ...entry, waiting: bad as never })).toBeUndefined();
		expect(classify(tail, 10 * MIN).state).toBe("idle");
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

// The pass reads a tail's last stretch only, and of a stretch that ends on a tool call not the
// results (stretch.ts); it builds the detectors' facts only for a stop the agent chose
// (classifyTail). Each tail below is classified both ways, so and with every line parsed (scan's
// reader over the whole tail, as before those shortcuts), and must come out identical.
const callSaying = (id: string, name: string, args: Record<string, unknown>, text: string) =>
	line({
		role: "assistant",
		content: [
			{ type: "text", text },
			{ type: "toolCall", id, name, arguments: args },
		],
		stopReason: "toolUse",
	});
const resultWith = (id: string, name: string, text: string, isError: boolean, extra: Record<string, unknown>) =>
	line({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, ...extra });
/** A result of a few KB, as a real test run or file read gives. */
const long = (text: string) => `${"output line\n".repeat(200)}${text}`;

function both(lines: string[], quietMs = 10 * MIN) {
	const all = [header, ...lines];
	const input = { lastActivityMs: NOW - quietMs, now: NOW, times: TIMES };
	const reference = classifyTail({ events: parseSessionLines("pi", all).events, ...input });
	const light = classifyTail({ events: stretchEvents("pi", all).events, ...input });
	return { reference, light };
}

const npmTestFails = long("Tests: 3 failed, 10 passed\nCommand exited with code 1");

describe("reading only what the verdict needs", () => {
	it("an announced step after long results", () => {
		const r = both([
			user("Fix the order test"),
			call("c1", "bash", { command: "npm test" }),
			result("c1", "bash", npmTestFails, true),
			say("The failure is in totals. Let me fix the rounding now."),
		]);
		expect(r.light.kind).toBe("announced");
		expect(r.light).toEqual(r.reference);
	});

	it("a claim a long result contradicts is caught", () => {
		const r = both([
			user("Make the tests pass"),
			call("c1", "bash", { command: "npm test" }),
			result("c1", "bash", npmTestFails, true),
			say("All tests pass now."),
		]);
		expect(r.light.state).toBe("idle");
		expect(r.light.kind).toBe("claim");
		expect(r.light).toEqual(r.reference);
	});

	it("a question and a sign-off after long results", () => {
		for (const closing of ["Which of the two fixes do you prefer?", "Shall I deploy to production? Please approve."]) {
			const r = both([
				user("Fix the order test"),
				call("c1", "bash", { command: "cat src/order.ts" }),
				result("c1", "bash", long("export const order = 1;")),
				say(closing),
			]);
			expect(r.light.state).toBe("waiting");
			expect(r.light).toEqual(r.reference);
		}
	});

	it("a stretch ending on a tool call, or on a long result: unknown either way", () => {
		const start = [user("Build it"), call("c1", "bash", { command: "make" }), result("c1", "bash", long("built"))];
		for (const ending of [[callSaying("c2", "bash", { command: "make test" }, "Now the tests.")], []]) {
			const r = both([...start, ...ending]);
			expect(r.light.state).toBe("unknown");
			expect(r.light).toEqual(r.reference);
		}
	});

	it("a cancelled call: the stop keeps the text before it", () => {
		const r = both([
			user("Run the slow suite"),
			callSaying("c1", "bash", { command: "npm test" }, "Let me run the suite now."),
			resultWith("c1", "bash", "Operation aborted", true, { details: { partial: "x".repeat(4000) } }),
			say(""),
		]);
		expect(r.light).toEqual(r.reference);
	});

	it("a long result carrying nested calls (a nested job in the background counts)", () => {
		const nested = {
			nestedCalls: { calls: [{ name: "bash", arguments: { command: "npm run build &" }, status: "ok" }] },
		};
		const r = both([
			user("Run the build"),
			call("c1", "code", { code: "run()" }),
			resultWith("c1", "code", long("started"), false, nested),
			say("The build is still running. Let me check the logs now."),
		]);
		// A job still running, said truthfully, is a hand-off: not an unfinished stop.
		expect(r.light.state).toBe("done");
		expect(r.light).toEqual(r.reference);
	});

	it("waiting on a background job: a long poll result saying whether it ended", () => {
		for (const status of ["<status>completed</status> exit code 0", "<status>running</status>"]) {
			const r = both([
				user("Run the build"),
				call("c1", "bash", { command: "npm run build &" }),
				result("c1", "bash", "started"),
				call("c2", "BashOutput", { bash_id: "1" }),
				result("c2", "BashOutput", long(status)),
				say("The build is still running. Let me check the logs now."),
			]);
			// Ended: nothing runs, so the wait is an unfinished stop; still running: a hand-off.
			expect(r.light.state).toBe(status.includes("completed") ? "idle" : "done");
			expect(r.light).toEqual(r.reference);
		}
	});

	it("a stretch with short results only", () => {
		const r = both([user("Fix it"), say("Done.")]);
		expect(r.light).toEqual(r.reference);
	});
});
