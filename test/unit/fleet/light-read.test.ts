// The fleet reads a tail's last stretch only, and of a stretch that ends on a tool call not the
// results (stretch.ts); it builds the detectors' facts only for a stop the agent chose
// (classify.ts). Each tail here is classified both ways, so and with every line parsed (scan's
// reader over the whole tail, as before the shortcuts), and must come out identical: same
// state, reason, kind, next step, goal and preview.
import { describe, expect, it } from "vitest";
import { classifyTail } from "../../../src/fleet/classify.ts";
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
const call = (id: string, name: string, args: Record<string, unknown>, text = "") =>
	line({
		role: "assistant",
		content: [...(text ? [{ type: "text", text }] : []), { type: "toolCall", id, name, arguments: args }],
		stopReason: "toolUse",
	});
const result = (id: string, name: string, text: string, isError = false, extra: Record<string, unknown> = {}) =>
	line({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, ...extra });
/** A result of a few KB, as a real test run or file read gives. */
const long = (text: string) => `${"output line\n".repeat(200)}${text}`;
const header = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-12-01T10:00:00Z", cwd: "/w" });

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
		for (const ending of [[call("c2", "bash", { command: "make test" }, "Now the tests.")], []]) {
			const r = both([...start, ...ending]);
			expect(r.light.state).toBe("unknown");
			expect(r.light).toEqual(r.reference);
		}
	});

	it("a cancelled call: the stop keeps the text before it", () => {
		const r = both([
			user("Run the slow suite"),
			call("c1", "bash", { command: "npm test" }, "Let me run the suite now."),
			result("c1", "bash", "Operation aborted", true, { details: { partial: "x".repeat(4000) } }),
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
			result("c1", "code", long("started"), false, nested),
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
