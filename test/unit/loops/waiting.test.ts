// Waiting versus looping: polling a background job between sleeps that do not get shorter is
// waiting, up to a bound (time waited, or polls); the same polls with no wait between them are
// held to the usual repeat threshold; sleeping alone, call after call, is bounded too.
import { describe, expect, it } from "vitest";
import { makeCallRecord } from "../../../src/transcript/call-record.ts";
import { LoopDetector, type LoopSignal } from "../../../src/loops/loop-detector.ts";
import type { ToolCallRecord } from "../../../src/transcript/tool-call.ts";
import { waitOf } from "../../../src/loops/waiting.ts";

let n = 0;
const rec = (name: string, args: Record<string, unknown>, result = ""): ToolCallRecord =>
	makeCallRecord(n++, name, args, result, false);
const poll = (result = "<status>running</status>") => rec("BashOutput", { bash_id: "b1" }, result);
const sleep = (seconds: number) => rec("bash", { command: `sleep ${seconds}` }, "");

function feed(calls: ToolCallRecord[], detector = new LoopDetector()): LoopSignal[] {
	const seen = new Map<string, LoopSignal>();
	for (const c of calls) for (const s of detector.add(c)) seen.set(s.key, s);
	n = 0;
	return [...seen.values()];
}
const kinds = (signals: LoopSignal[]) => [...new Set(signals.map((s) => s.kind))].sort();
/** Polls, each after a sleep of `waits[i]` seconds. */
const pollsAfter = (waits: number[], result?: string) => waits.flatMap((w) => [sleep(w), poll(result)]);

describe("what a call waits", () => {
	it("reads sleeps in seconds, minutes and fractions, and tells a pure wait from a wait and a check", () => {
		expect(waitOf(rec("bash", { command: "sleep 30" }))).toEqual({ ms: 30_000, pure: true });
		expect(waitOf(rec("bash", { command: 'sleep 2m && echo "checking…"' }))).toEqual({ ms: 120_000, pure: true });
		expect(waitOf(rec("bash", { command: "sleep 0.5; sleep 1" }))).toEqual({ ms: 1500, pure: true });
		expect(waitOf(rec("bash", { command: "cd /repo && sleep 60 && gh run view 42 --json status" }))).toEqual({
			ms: 60_000,
			pure: false,
			check: "gh run view 42 --json status",
		});
		expect(waitOf(rec("TaskOutput", { task_id: "t1", block: true, timeout: 45_000 }))).toEqual({
			ms: 45_000,
			pure: false,
		});
		expect(waitOf(rec("subagent", { action: "wait", id: "r1", timeoutMs: 120_000 }))).toEqual({
			ms: 120_000,
			pure: false,
		});
		// Not waits: a loop that sleeps inside one command, a word that merely contains "sleep".
		expect(waitOf(rec("bash", { command: "until curl -s localhost:3000; do sleep 1; done" }))).toBeUndefined();
		expect(waitOf(rec("bash", { command: "grep -rn sleepTimer src" }))).toBeUndefined();
		expect(waitOf(rec("read", { path: "sleep.ts" }))).toBeUndefined();
	});
});

describe("waiting versus looping", () => {
	it("polls between growing sleeps are waiting: no signal while within the bound", () => {
		const waits = Array.from({ length: 12 }, (_, i) => 10 + i * 10); // 10 s … 120 s, 13 min in all
		expect(feed(pollsAfter(waits))).toEqual([]);
		// Steady sleeps are waiting as well (the same A-B sleep/poll round is no cycle).
		expect(feed(pollsAfter(Array.from({ length: 12 }, () => 30)))).toEqual([]);
	});

	it("near miss: the same polls with no wait in between are a loop at the usual threshold", () => {
		const signals = feed(Array.from({ length: 5 }, () => poll()));
		expect(signals.find((s) => s.kind === "repeat")).toMatchObject({ count: 5, from: 0, to: 4 });
	});

	it("near miss: waits that get shorter are not backing off: the usual threshold", () => {
		const signals = feed(pollsAfter([60, 30, 20, 10, 5, 2]));
		expect(kinds(signals)).toContain("repeat");
		expect(kinds(signals)).not.toContain("waiting");
	});

	it("waiting past the time bound: a waiting signal with a headline and the detail in the evidence", () => {
		const waits = [30, 60, 120, 240, 480, 960]; // 31.5 min before the seventh poll
		const signals = feed([poll(), ...pollsAfter(waits)]);
		expect(kinds(signals)).toEqual(["waiting"]);
		const w = signals[0] as LoopSignal;
		expect(w.headline).toBe("Waited 32 min on BashOutput: same answer 7 times");
		expect(w.evidence).toMatch(
			/^Call: BashOutput \{"bash_id":"b1"\}\. Polled at calls 0–12, each after a wait no shorter than the one before \(the last 16 min\), always the same answer \(bound: 30 min waited or 20 polls\)\.$/,
		);
		expect(w.wayOut).toMatch(/read the job's log/);
	});

	it("waiting past the poll bound (4 × loops.repeats polls) with short steady sleeps", () => {
		const signals = feed(pollsAfter(Array.from({ length: 21 }, () => 5)));
		expect(signals.find((s) => s.kind === "waiting")).toMatchObject({ count: 21 });
		expect(feed(pollsAfter(Array.from({ length: 20 }, () => 5)))).toEqual([]);
	});

	it("a check that sleeps first (`sleep N && cmd`) is one poll whatever N is", () => {
		const check = (s: number) => rec("bash", { command: `sleep ${s} && tail -5 build.log` }, "still compiling");
		expect(feed([10, 20, 40, 80, 160, 320].map(check))).toEqual([]);
		const past = feed([60, 120, 240, 480, 960, 1920].map(check));
		expect(past.find((s) => s.kind === "waiting")?.headline).toBe("Waited 62 min on bash: same answer 6 times");
		// The same check with no sleep: the usual repeat threshold.
		expect(
			kinds(feed(Array.from({ length: 5 }, () => rec("bash", { command: "tail -5 build.log" }, "still compiling")))),
		).toContain("repeat");
	});

	it("blocking polls (a wait in the call itself) are waiting too", () => {
		const block = () => rec("TaskOutput", { task_id: "t1", block: true, timeout: 60_000 }, "<status>running</status>");
		expect(feed(Array.from({ length: 12 }, block))).toEqual([]);
		expect(
			kinds(feed(Array.from({ length: 12 }, () => rec("TaskOutput", { task_id: "t1" }, "<status>running</status>")))),
		).toContain("repeat");
	});

	it("polling whose answer changes between waits is progress, and a new answer starts the count afresh", () => {
		const moving = Array.from({ length: 25 }, (_, i) => [
			sleep(5),
			poll(`<status>running</status> ${i} of 25 done`),
		]).flat();
		expect(feed(moving)).toEqual([]);
	});

	it("sleeping alone past the bound: a waiting signal; a call that looks at something in between starts it afresh", () => {
		const signals = feed(Array.from({ length: 6 }, () => sleep(300)));
		expect(signals.find((s) => s.kind === "waiting")).toMatchObject({
			headline: "Slept 30 min in 6 calls in a row",
			from: 0,
			to: 5,
		});
		const broken = feed([
			sleep(300),
			sleep(300),
			sleep(300),
			rec("bash", { command: "ls dist" }, "app.js"),
			sleep(300),
			sleep(300),
			sleep(300),
		]);
		expect(broken).toEqual([]);
	});

	it("loops.maxWaitMs sets the bound", () => {
		expect(kinds(feed(pollsAfter([30, 60, 120]), new LoopDetector({ maxWaitMs: 180_000 })))).toEqual(["waiting"]);
	});
});
