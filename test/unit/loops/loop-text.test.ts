// A loop finding's summary is a short headline and its evidence carries the detail: for every
// signal kind, warned and escalated, the summary fits one short line and the evidence does not
// repeat it. Long paths, commands and tool names must not push a headline past its limit.
import { describe, expect, it } from "vitest";
import { makeCallRecord } from "../../../src/transcript/call-record.ts";
import { LoopDetector, type LoopSignal, type SignalKind } from "../../../src/loops/loop-detector.ts";
import { HEADLINE_MAX, shortName } from "../../../src/loops/loop-text.ts";
import { loopFinding } from "../../../src/loops/loop-watch.ts";
import type { ToolCallRecord } from "../../../src/transcript/tool-call.ts";

const DEEP = "packages/some-very-long-package-name/src/internal/adapters/legacy/compatibility-layer.ts";
const LONG_COMMAND = `npx vitest run ${DEEP.replace(/\.ts$/, ".test.ts")} --reporter verbose --no-coverage 2>&1 | tail -40`;

function signalsOf(
	make: (i: number) => [string, Record<string, unknown>, string],
	count: number,
	detector = new LoopDetector(),
): LoopSignal[] {
	const out: LoopSignal[] = [];
	for (let i = 0; i < count; i++) {
		const [name, args, result] = make(i);
		const call: ToolCallRecord = makeCallRecord(i, name, args, result, false);
		out.push(...detector.add(call));
	}
	return out;
}

/** One run per kind, each with names as long as real sessions have them. */
const RUNS: Record<SignalKind, () => LoopSignal[]> = {
	repeat: () =>
		signalsOf(() => ["mcp__a_rather_long_server_name__inspect_the_state_of_things", { what: "everything" }, "same"], 7),
	rerun: () =>
		signalsOf(
			(i) =>
				i % 2
					? ["read", { path: `${DEEP}.${i}` }, "x\n".repeat(10)]
					: ["bash", { command: LONG_COMMAND }, "Tests 3 failed"],
			6,
		),
	target: () => signalsOf(() => ["read", { path: DEEP, offset: 1, limit: 50 }, "line\n".repeat(50)], 14),
	stale: () =>
		signalsOf(
			(i) => [
				"bash",
				{ command: `git diff ${["HEAD", "--cached", "main"][i % 3]} -- ${DEEP}${i % 2 ? " | head -50" : ""}` },
				"\n",
			],
			10,
		),
	dominant: () =>
		signalsOf(
			(i) =>
				i % 2
					? ["bash", { command: "git status --short" }, " M src/a.ts"]
					: ["read", { path: `src/f${i}.ts` }, "x\n".repeat(40)],
			30,
		),
	reread: () =>
		signalsOf(
			() => ["read", { path: DEEP, offset: 1, limit: 200 }, "line\n".repeat(200)],
			4,
			new LoopDetector({ targetHits: 100 }),
		),
	cycle: () =>
		signalsOf(
			(i) => ["bash", { command: i % 2 ? "npm run build" : `cat ${DEEP}` }, i % 2 ? "error TS2322" : "const a = 1"],
			6,
			new LoopDetector({ repeats: 10 }),
		),
	restating: () => {
		const d = new LoopDetector();
		const out: LoopSignal[] = [];
		for (let i = 0; i < 6; i++) {
			out.push(
				...d.said(
					`I will now rework ${DEEP} so that the legacy adapter accepts the new configuration format and then rerun ${LONG_COMMAND}.`,
				),
			);
			out.push(...d.add(makeCallRecord(i, "bash", { command: LONG_COMMAND }, "Tests 3 failed", false)));
		}
		return out;
	},
	echo: () => {
		const d = new LoopDetector();
		d.add(makeCallRecord(0, "read", { path: DEEP }, "x", false));
		return d.said(`I will now rework ${DEEP} so the legacy adapter accepts the new configuration format. `.repeat(6));
	},
	"same-answer": () => {
		const d = new LoopDetector();
		d.add(makeCallRecord(0, "read", { path: DEEP }, "x", false));
		return [1, 2, 3].flatMap(() => d.said(`The adapter in ${DEEP} cannot accept the new configuration format.`));
	},
	compaction: () => {
		const d = new LoopDetector();
		d.add(makeCallRecord(0, "read", { path: DEEP }, "x", false));
		return [1, 2, 3].flatMap(() => d.compacted(true));
	},
	retry: () =>
		signalsOf((i) => ["bash", { command: LONG_COMMAND }, `Exit code 1\nError: listen EADDRINUSE :::${3000 + i}`], 5),
	// Polls between doubling sleeps, past the 30 minutes; then sleeping alone past them.
	waiting: () =>
		signalsOf(
			(i) =>
				i % 2
					? ["mcp__a_rather_long_server_name__job_status", { id: "j1" }, "running"]
					: ["bash", { command: `sleep ${i < 14 ? 30 * 2 ** (i / 2) : 900}` }, ""],
			18,
		),
};

describe("loop finding texts", () => {
	for (const kind of Object.keys(RUNS) as SignalKind[]) {
		it(`${kind}: the summary is a short headline the evidence does not repeat`, () => {
			const signals = RUNS[kind]().filter((s) => s.kind === kind);
			expect(signals.length).toBeGreaterThan(0);
			for (const signal of signals) {
				const warned = loopFinding(signal, "concern");
				const escalated = loopFinding(signal, "blocker", signal);
				for (const f of [warned, escalated]) {
					expect(f.summary.length).toBeLessThanOrEqual(HEADLINE_MAX);
					expect(f.summary).not.toMatch(/…$/); // headlines fit by construction, not by clipping
					expect(f.evidence).not.toContain(f.summary);
					expect(f.evidence).toMatch(/\bcalls? \d+/i); // the detail: which calls
				}
				expect(warned.summary).toBe(signal.headline);
				expect(signal.evidence).not.toContain(signal.headline);
				expect(escalated.summary).toBe(`Still looping: ${signal.headline}`);
				expect(escalated.evidence).toMatch(/^Warned at call \d+; the loop went on\. /);
			}
		});
	}

	it("names the file and the count in a reread headline, and the full call in the evidence", () => {
		const reread = RUNS.reread().find((s) => s.kind === "reread");
		expect(reread?.headline).toBe(`${shortName(DEEP)} read 3 times without a change`);
		expect(reread?.evidence).toMatch(
			/^600 lines read for 200 distinct lines \(3\.0×\), calls 0–2, nothing landed in between \(threshold: 3×\)\.$/,
		);
		const rerun = RUNS.rerun().find((s) => s.kind === "rerun");
		expect(rerun?.headline).toBe("Check re-run 3 times with nothing changed in between");
		expect(rerun?.evidence).toContain("npx vitest run packages/some-very-long-package-name");
	});

	it("keeps the end of a long path, where the file name is", () => {
		expect(shortName(DEEP)).toMatch(/^….*compatibility-layer\.ts$/);
		expect(shortName(DEEP).length).toBe(30);
		expect(shortName("src/app.ts")).toBe("src/app.ts");
	});
});
