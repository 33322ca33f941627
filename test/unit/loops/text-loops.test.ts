// The loop signals that do not rest on one identical call: a message that repeats itself, the
// same text-only answer turn after turn, compaction after compaction, one command failing with
// its error worded differently each time, identical errors counted sooner, and a user's nudge
// that must not wipe the streaks while a real instruction does.
import { describe, expect, it } from "vitest";
import { DEFAULT_THRESHOLDS, LoopDetector, type LoopSignal } from "../../../src/loops/loop-detector.ts";
import { LoopWatch } from "../../../src/loops/loop-watch.ts";
import { isNudge } from "../../../src/loops/nudge.ts";
import { echoIn } from "../../../src/loops/text-loops.ts";
import { makeCallRecord } from "../../../src/transcript/call-record.ts";

const kinds = (signals: LoopSignal[]) => [...new Set(signals.map((s) => s.kind))];

describe("repetition inside one message", () => {
	const cases: Array<[string, string, boolean]> = [
		["one sentence five times", "I will check the config file again now. ".repeat(5), true],
		["a run of words with no punctuation", "let me look at the parser module once more ".repeat(6), true],
		[
			"numbers and paths changing do not hide it",
			[1, 2, 3, 4, 5].map((i) => `Retrying step ${i} in src/a${i}.ts now.`).join(" "),
			true,
		],
		["three times is not enough", "I will check the config file again now. ".repeat(3), false],
		[
			"a list of similar but different items",
			["parser", "lexer", "printer", "checker", "resolver", "emitter"]
				.map((m) => `- Updated the ${m} to accept the new option.`)
				.join("\n"),
			false,
		],
		[
			"a Markdown table",
			`| file | status |\n| --- | --- |\n${[1, 2, 3, 4, 5, 6, 7, 8].map((i) => `| \`src/m${i}.ts\` | ok |`).join("\n")}`,
			false,
		],
		[
			"an ordinary report",
			"I changed the parser. The tests pass: 42 passed. The build is green. Nothing else is left to do.",
			false,
		],
	];
	for (const [name, text, flagged] of cases)
		it(`${flagged ? "flags" : "does not flag"} ${name}`, () => {
			expect(echoIn(text) !== undefined).toBe(flagged);
			expect(kinds(new LoopDetector().said(text)).includes("echo")).toBe(flagged);
		});
});

describe("the same text-only answer turn after turn", () => {
	const answer = "I cannot find the configuration for the staging server in this repository.";
	it("flags the third identical answer with no call between", () => {
		const d = new LoopDetector();
		expect(kinds(d.said(answer))).not.toContain("same-answer");
		expect(kinds(d.said(answer))).not.toContain("same-answer");
		const third = d.said(answer).find((s) => s.kind === "same-answer");
		expect(third?.count).toBe(3);
	});
	it("starts again after a tool call", () => {
		const d = new LoopDetector();
		d.said(answer);
		d.said(answer);
		d.add(makeCallRecord(0, "read", { path: "deploy.yml" }, "stages: [build]", false));
		expect(kinds(d.said(answer))).not.toContain("same-answer");
	});
	it("does not count different answers", () => {
		const d = new LoopDetector();
		const out = ["First I read the parser.", "Then I changed the lexer to match.", "Now the tests pass."].flatMap((t) =>
			d.said(t),
		);
		expect(kinds(out)).not.toContain("same-answer");
	});
});

describe("compaction with nothing landing", () => {
	it("flags the third compaction, and counts overflow errors", () => {
		const d = new LoopDetector();
		d.add(makeCallRecord(0, "read", { path: "a.ts" }, "x", false));
		expect(d.compacted()).toEqual([]);
		expect(d.compacted(true)).toEqual([]);
		const s = d.compacted();
		expect(s[0]?.kind).toBe("compaction");
		expect(s[0]?.evidence).toMatch(/3 compactions \(1 of them context-overflow errors\)/);
	});
	it("reaches the live watch: compactions in a row are told with the next tool result", () => {
		const settings = { enabled: true, loops: { enabled: true, stopRun: false, ...DEFAULT_THRESHOLDS } };
		const watch = new LoopWatch();
		const read = (path: string) =>
			watch.toolResult(settings, {
				toolName: "read",
				input: { path },
				content: [{ type: "text", text: path }],
				isError: false,
			});
		read("a.ts");
		for (let i = 0; i < 3; i++) watch.compacted();
		expect(read("b.ts").signal?.kind).toBe("compaction");
	});
	it("forgets compactions once something lands", () => {
		const d = new LoopDetector();
		d.compacted();
		d.compacted();
		d.add(makeCallRecord(0, "edit", { path: "a.ts", oldText: "a", newText: "b" }, "Edited a.ts", false, true));
		expect(d.compacted()).toEqual([]);
	});
});

describe("one command failing however its error is worded", () => {
	const run = (d: LoopDetector, i: number, result: string, isError = true) =>
		d.add(makeCallRecord(i, "bash", { command: "npm run dev" }, result, isError));
	it("flags the fourth failing run with differently worded errors", () => {
		const d = new LoopDetector();
		const out: LoopSignal[] = [];
		for (let i = 0; i < 4; i++)
			out.push(...run(d, i, `Exit code 1\nError: listen EADDRINUSE :::${3000 + i} at ${i}ms`));
		const retry = out.find((s) => s.kind === "retry");
		expect(retry?.count).toBe(4);
		expect(retry?.evidence).toMatch(/worded 4 ways/);
	});
	it("does not flag three failures", () => {
		const d = new LoopDetector();
		const out = [0, 1, 2].flatMap((i) => run(d, i, `Exit code 1\nerror ${i}`));
		expect(kinds(out)).not.toContain("retry");
	});
	it("starts again after a success or a command that changes files", () => {
		for (const between of [
			{ command: "npm run dev", result: "ready on :3000", isError: false },
			{ command: "sed -i s/3000/3001/ server.js", result: "", isError: false },
		]) {
			const d = new LoopDetector();
			const out = [0, 1].flatMap((i) => run(d, i, `Exit code 1\nerror ${i}`));
			out.push(...d.add(makeCallRecord(2, "bash", { command: between.command }, between.result, between.isError)));
			out.push(...[3, 4].flatMap((i) => run(d, i, `Exit code 1\nerror ${i}`)));
			expect(kinds(out)).not.toContain("retry");
		}
	});
	it("reads a non-zero exit in the text as a failure even when the result is not marked an error", () => {
		const d = new LoopDetector();
		const out = [0, 1, 2, 3].flatMap((i) => run(d, i, `boom ${i}\n\nCommand exited with code 2`, false));
		expect(kinds(out)).toContain("retry");
	});
});

describe("identical failing calls", () => {
	const call = (i: number, isError: boolean) =>
		makeCallRecord(i, "mcp__db__query", { sql: "select 1" }, isError ? "connection refused" : "1 row", isError);
	it(`flags an error answer at ${DEFAULT_THRESHOLDS.errorRepeats}, an ordinary one at ${DEFAULT_THRESHOLDS.repeats}`, () => {
		const errors = new LoopDetector();
		const ok = new LoopDetector();
		const errorSignals = [0, 1, 2, 3].flatMap((i) => errors.add(call(i, true)));
		const okSignals = [0, 1, 2, 3].flatMap((i) => ok.add(call(i, false)));
		expect(errorSignals.find((s) => s.kind === "repeat")?.count).toBe(4);
		expect(kinds(okSignals)).not.toContain("repeat");
		expect(kinds(ok.add(call(4, false)))).toContain("repeat");
	});
});

describe("nudges", () => {
	const nudges = [
		"continue",
		"Continue.",
		"come on",
		"go on please",
		"ok, keep going",
		"try again",
		"?",
		"继续",
		"yes, proceed",
	];
	const instructions = [
		"continue, but use the staging database this time",
		"Now fix the parser in src/parse.ts instead",
		"stop polling and read the log",
		"why did the build fail?",
		"Implement the retry logic for uploads",
	];
	for (const text of nudges) it(`"${text}" is a nudge`, () => expect(isNudge(text)).toBe(true));
	for (const text of instructions) it(`"${text}" is an instruction`, () => expect(isNudge(text)).toBe(false));

	const settings = { enabled: true, loops: { enabled: true, stopRun: false, ...DEFAULT_THRESHOLDS } };
	const poll = (watch: LoopWatch) =>
		watch.toolResult(settings, {
			toolName: "bash",
			input: { command: "curl -s localhost:3000/health" },
			content: [{ type: "text", text: "curl: (7) Failed to connect" }],
			isError: true,
		});
	it("a nudge keeps the live streak, a new instruction starts afresh", () => {
		const nudged = new LoopWatch();
		const told = new LoopWatch();
		for (const watch of [nudged, told]) for (let i = 0; i < 3; i++) poll(watch);
		nudged.userPrompt("come on");
		told.userPrompt("Use port 8080 instead; the server moved");
		expect(poll(nudged).findings.length).toBe(1);
		expect(poll(told).findings.length).toBe(0);
	});
});
