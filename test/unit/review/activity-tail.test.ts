// The activity tail's pure core: which subagent calls count, how they pair with results, the
// bounds, and the per-prompt limits.
import { describe, expect, it } from "vitest";
import { RUN_ACTIONS } from "../../../src/children/tool-params.ts";
import {
	ACTIVITY_ENTRY_CHARS,
	ACTIVITY_TAIL_CHARS,
	ActivityTail,
	activityOfTurn,
	ORCHESTRATION_ACTIONS,
} from "../../../src/review/activity-tail.ts";

const call = (id: string, args: Record<string, unknown>, name = "subagent") => ({
	type: "toolCall",
	id,
	name,
	arguments: args,
});
const result = (id: string, text: string, name = "subagent", isError = false) => ({
	toolCallId: id,
	toolName: name,
	content: [{ type: "text", text }],
	isError,
});
const turn = (calls: unknown[], results: unknown[]) => ({
	message: { role: "assistant", content: calls },
	toolResults: results as never,
});

describe("activityOfTurn", () => {
	it("pairs a launch or a run action with the result of the same tool name and exact id", () => {
		const found = activityOfTurn(
			turn(
				[
					call("c1", { agent: "scout", task: "find greet" }),
					call("c2", { action: "wait", id: "run-1" }),
					call("c3", { action: "status" }),
				],
				[
					result("c1", "greet is in src/app.ts"),
					result("c2", "run-1: done", "subagent", true),
					result("c3", "no runs", "bash"),
				],
			),
		);
		expect(found.map((f) => f.id)).toEqual(["c1", "c2"]); // c3's result has another tool's name
		expect(found[0].text).toMatch(
			/^\[subagent launch\] \{"agent":"scout","task":"find greet"\}\n\[result\]\ngreet is in src\/app\.ts$/,
		);
		expect(found[1].text).toMatch(/^\[subagent wait\] .*\n\[result, error\]\nrun-1: done$/);
	});

	it("leaves out the watchdog's own actions, other tools, and calls without a result", () => {
		const found = activityOfTurn(
			turn(
				[
					call("w1", { action: "watchdog.status" }),
					call("w2", { action: "watchdog.configure", model: "x/y" }),
					call("b1", { command: "ls" }, "bash"),
					call("c9", { agent: "worker", task: "t" }),
				],
				[result("w1", "status"), result("w2", "ok"), result("b1", "files", "bash"), result("c8", "an unrelated id")],
			),
		);
		expect(found).toEqual([]);
	});

	it("bounds each entry", () => {
		const [entry] = activityOfTurn(
			turn([call("c1", { agent: "scout", task: "x".repeat(5000) })], [result("c1", "y".repeat(10_000))]),
		);
		expect(entry.text.length).toBe(ACTIVITY_ENTRY_CHARS);
		expect(entry.text).toMatch(/^\[subagent launch\] .{1,1000}\n\[result\]\ny+…$/);
	});

	it("knows the same run actions as the subagent tool", () => {
		expect([...ORCHESTRATION_ACTIONS].sort()).toEqual([...RUN_ACTIONS].sort());
	});
});

describe("ActivityTail", () => {
	const launch = (id: string, text = "done") =>
		turn([call(id, { agent: "scout", task: `task ${id}` })], [result(id, text)]);

	it("keeps the recent 6,000 characters, newest last", () => {
		const tail = new ActivityTail();
		for (let i = 0; i < 5; i++) tail.turnEnd(launch(`c${i}`, String(i).repeat(2000)));
		const { chars, entries } = tail.size();
		expect(chars).toBeLessThanOrEqual(ACTIVITY_TAIL_CHARS);
		expect(entries).toBe(2);
		expect(tail.texts().at(-1)).toContain("task c4");
	});

	it("allows one activity review per prompt, for a run with fresh activity of its own", () => {
		const tail = new ActivityTail();
		tail.userPrompt();
		expect(tail.takeActivityDue()).toBe(false); // no activity
		tail.turnEnd(launch("c1"));
		expect(tail.takeActivityDue()).toBe(true);
		tail.activityReviewStarted();
		tail.reviewed();
		tail.turnEnd(launch("c2"));
		expect(tail.takeActivityDue()).toBe(false); // the prompt had its activity review
		tail.userPrompt();
		expect(tail.takeActivityDue()).toBe(false); // old activity does not trigger a new prompt by itself
		tail.turnEnd(launch("c3"));
		expect(tail.takeActivityDue()).toBe(true);
		expect(tail.texts().map((t) => t.startsWith("(new)"))).toEqual([false, true, true]);
	});

	it("does not let a run the watchdog continued supply fresh activity", () => {
		const tail = new ActivityTail();
		tail.userPrompt();
		tail.continuedByWatchdog();
		tail.turnEnd(launch("c1"));
		expect(tail.takeActivityDue()).toBe(false);
		expect(tail.size().entries).toBe(1); // kept as context all the same
		tail.settledAlone();
		tail.turnEnd(launch("c2"));
		expect(tail.takeActivityDue()).toBe(true);
	});

	it("is emptied by clear, and asks once per prompt", () => {
		const tail = new ActivityTail();
		tail.turnEnd(launch("c1"));
		tail.clear();
		expect(tail.size()).toEqual({ entries: 0, chars: 0 });
		expect(tail.takeActivityDue()).toBe(false);
		expect(tail.mayAsk()).toBe(true);
		tail.asked();
		expect(tail.mayAsk()).toBe(false);
		tail.userPrompt();
		expect(tail.mayAsk()).toBe(true);
	});
});
