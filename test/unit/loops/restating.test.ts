// The model restating itself: the same sentence across turns while its calls bring nothing new
// fires; the near misses (new results in between, sentences too short to say anything, a
// landing, a user prompt) do not.
import { describe, expect, it } from "vitest";
import { makeCallRecord } from "../../../src/transcript/call-record.ts";
import { LoopDetector, type LoopSignal } from "../../../src/loops/loop-detector.ts";
import { sentenceKey, sentencesOf } from "../../../src/loops/restating.ts";

type Step = { say: string } | { call: [string, Record<string, unknown>, string] };

/** Feeds the turns in order (text, then the turn's calls), returning every restating signal. */
function run(steps: Step[], detector = new LoopDetector()): LoopSignal[] {
	let i = 0;
	const out: LoopSignal[] = [];
	for (const step of steps) {
		if ("say" in step) out.push(...detector.said(step.say));
		else out.push(...detector.add(makeCallRecord(i++, step.call[0], step.call[1], step.call[2], false)));
	}
	return out.filter((s) => s.kind === "restating");
}
const say = (text: string): Step => ({ say: text });
const bash = (command: string, result: string): Step => ({ call: ["bash", { command }, result] });
const poll = (result: string): Step => ({ call: ["BashOutput", { bash_id: "b1" }, result] });

describe("restating", () => {
	it("the same plan said turn after turn while the calls return what they returned before", () => {
		const plan = "I'll fix the parser by widening the regex in src/parse.ts, then rerun the tests.";
		const turns = Array.from({ length: 4 }, () => [
			say(`Looking again. ${plan}`),
			bash("git diff -- src/parse.ts", ""),
		]).flat();
		const signals = run([bash("git diff -- src/parse.ts", ""), ...turns]);
		expect(signals.length).toBeGreaterThan(0);
		const last = signals.at(-1) as LoopSignal;
		expect(last).toMatchObject({
			kind: "restating",
			count: 4,
			from: 1,
			to: 3,
			headline: "Same sentence said in 4 turns, nothing new between",
		});
		expect(last.evidence).toContain(
			`"I'll fix the parser by widening the regex in src/parse.ts, then rerun the tests.", each time after calls that brought no answer`,
		);
		expect(last.evidence).toMatch(/calls 1–3/);
		// Fires from the third saying on (loops.restateRepeats: 3).
		expect(signals[0]?.count).toBe(3);
	});

	it("counts a sentence whose numbers and paths change as the same sentence", () => {
		const turns = [1, 2, 3].flatMap((n) => [
			say(`Still waiting on job ${n * 7}; let me check the log at /tmp/run-${n}.log again.`),
			bash("tail -3 build.log", "compiling…"),
		]);
		expect(run([bash("tail -3 build.log", "compiling…"), ...turns]).at(-1)).toMatchObject({ count: 3 });
		expect(sentenceKey("Let me check /tmp/a.log again (27 done).")).toBe(
			sentenceKey("let me check   ./b/c.log again (31 done)!"),
		);
	});

	it("near miss: a short 'Let me check again' with new results in between does not fire", () => {
		const turns = Array.from({ length: 12 }, (_, i) => [
			say("Still running. Let me check again:"),
			poll(`<status>running</status> ${i * 3} of 40 done`),
		]).flat();
		expect(run(turns)).toEqual([]);
	});

	it("the same words again with nothing new do fire, even as short as 'Let me check again'", () => {
		const turns = Array.from({ length: 4 }, () => [
			say("Still running. Let me check again:"),
			poll("<status>running</status>"),
		]).flat();
		// The first check after the first saying is news (an answer not had before); the count starts after it.
		expect(run(turns).at(-1)).toMatchObject({ count: 3, from: 1, to: 2 });
	});

	it("near miss: sentences too short to say anything, and code blocks, never count", () => {
		const turns = Array.from({ length: 6 }, () => [
			say("OK.\nContinuing:\n```\nnpm run build -- --watch false\n```"),
			bash("npm run build", "error TS2322"),
		]).flat();
		expect(run(turns)).toEqual([]);
		expect(sentencesOf("Done. ```\na b c d\n``` Next step.")).not.toContain("a b c d");
	});

	it("near miss: one message saying a thing twice is one turn, and a turn with no call between does not count", () => {
		expect(
			run([
				bash("ls", "a"),
				say("I will read the config file now. I will read the config file now."),
				say("I will read the config file now."),
			]),
		).toEqual([]);
	});

	it("a landing or a user prompt starts the count afresh", () => {
		const plan = say("Next I will rerun the failing tests once more.");
		const same = bash("npm test", "FAIL 3");
		const landed = run([
			same,
			plan,
			same,
			plan,
			{ call: ["write", { path: "a.ts", content: "x" }, "Wrote a.ts"] },
			plan,
			same,
			plan,
			same,
		]);
		expect(landed).toEqual([]);
		const d = new LoopDetector();
		run([same, plan, same, plan], d);
		d.reset();
		expect(run([same, plan, same], d)).toEqual([]);
	});

	it("keeps its memory bounded on long texts and many sentences", () => {
		const d = new LoopDetector();
		let i = 0;
		for (let turn = 0; turn < 200; turn++) {
			d.said(
				Array.from({ length: 100 }, (_, k) => `Sentence number ${"x".repeat(k)} of turn ${turn} is unique here.`).join(
					" ",
				),
			);
			d.add(makeCallRecord(i++, "bash", { command: "ls" }, "a", false));
		}
		// Nothing repeats, nothing fires; the tracked sentences stay bounded (checked through behaviour: no throw, no signal).
		expect(d.said("A completely new sentence appears here.")).toEqual([]);
	});
});
