// Each signal of the loop detector, and a near miss beside it that must not fire.
import { describe, expect, it } from "vitest";
import { LoopDetector, type LoopSignal } from "../../../src/loops/loop-detector.ts";
import { commandHead, normalizeCommand, outcomeText } from "../../../src/loops/normalize.ts";
import type { ToolCallRecord } from "../../../src/transcript/tool-call.ts";
import { makeCallRecord } from "../../../src/transcript/call-record.ts";

let n = 0;
const rec = (name: string, args: Record<string, unknown>, result = "", isError = false): ToolCallRecord =>
	makeCallRecord(n++, name, args, result, isError);
const bash = (command: string, result = "ok") => rec("bash", { command }, result);
const read = (path: string, offset?: number, limit?: number, result = "line\n".repeat(limit ?? 40)) =>
	rec("read", { path, ...(offset ? { offset } : {}), ...(limit ? { limit } : {}) }, result);

function feed(calls: ToolCallRecord[], detector = new LoopDetector()): LoopSignal[] {
	n = 0;
	const seen = new Map<string, LoopSignal>();
	for (const c of calls) for (const s of detector.add(c)) seen.set(s.key, s);
	return [...seen.values()];
}
const kinds = (signals: LoopSignal[]) => [...new Set(signals.map((s) => s.kind))].sort();

describe("normalising calls", () => {
	it("strips env-var and cd prefixes, comments and line joins from commands", () => {
		expect(normalizeCommand("FOO=1 BAR='x y' cd src && npm test  # again")).toBe("npm test");
		expect(normalizeCommand("cd /repo; npx vitest run \\\n  a.test.ts")).toBe("npx vitest run a.test.ts");
		expect(commandHead("export CI=1 git diff HEAD -- a.ts")).toBe("git diff");
	});

	it("treats timestamps, durations and empty answers as the same answer", () => {
		expect(outcomeText("<status>running</status> <timestamp>2025-12-01T04:48:27.427Z</timestamp>", false)).toBe(
			outcomeText("<status>running</status> <timestamp>2025-12-01T04:48:31.051Z</timestamp>", false),
		);
		expect(outcomeText("done in 120ms", false)).toBe(outcomeText("done in 98ms", false));
		expect(outcomeText("\n", false)).toBe(outcomeText("(no output)", false));
		expect(outcomeText("30/50 books", false)).not.toBe(outcomeText("31/50 books", false));
	});
});

describe("signals", () => {
	it("repeat: the same call with the same result; not when the result changes", () => {
		const same = feed(Array.from({ length: 6 }, () => bash("npm test", "FAIL 3 tests")));
		expect(kinds(same)).toContain("repeat");
		expect(same.find((s) => s.kind === "repeat")).toMatchObject({ from: 0, to: 5, count: 6 });
		expect(kinds(feed(Array.from({ length: 12 }, (_, i) => bash("npm test", `FAIL ${12 - i} tests`))))).toEqual([]);
	});

	it("repeat of a poll: only while the answer stays the same", () => {
		const poll = (status: string) => rec("BashOutput", { bash_id: "b1" }, status);
		expect(kinds(feed(Array.from({ length: 6 }, () => poll("<status>running</status>"))))).toContain("repeat");
		// Progress every few polls: answers repeat, but never five in a row.
		const progress = Array.from({ length: 40 }, (_, i) =>
			poll(`<status>running</status> ${Math.floor(i / 3)} of 20 done`),
		);
		expect(kinds(feed(progress))).toEqual([]);
	});

	it("rerun: a check run a third time with the same result while nothing landed; not after an edit, nor when its result changes", () => {
		const check = (result = "Tests 12 passed (12)\nDuration 3.2s") =>
			bash("npx vitest run src/a.test.ts 2>&1 | tail -20", result);
		const idle = feed([
			check(),
			bash("git status --short", " M src/a.ts"),
			check("Tests 12 passed (12)\nDuration 2.9s"),
			read("src/a.ts"),
			check(),
		]);
		expect(idle.find((s) => s.kind === "rerun")).toMatchObject({
			from: 0,
			to: 4,
			count: 3,
			headline: "Check re-run 3 times with nothing changed in between",
			evidence: expect.stringMatching(
				/^Check: bash `npx vitest run src\/a\.test\.ts 2>&1 \| tail -20`\. Same result at each run, calls 0–4/,
			),
		});
		const edited = feed([check(), check(), rec("edit", { path: "src/a.ts" }, "Edited"), check(), check()]);
		expect(kinds(edited)).toEqual([]);
		// A file written from the shell is a change the checks may see, although nothing landed.
		expect(
			kinds(feed([check(), check(), bash("sed -i 's/1/2/' src/a.ts", ""), check(), check()])).includes("rerun"),
		).toBe(false);
		const moving = feed([
			check("Tests 3 failed"),
			check("Tests 2 failed"),
			check("Tests 1 failed"),
			check("Tests 12 passed"),
		]);
		expect(kinds(moving)).toEqual([]);
		// Not a check: three identical answers of another command are left to the other signals.
		expect(
			kinds(
				feed([bash("git status --short", "M a"), bash("git status --short", "M a"), bash("git status --short", "M a")]),
			),
		).toEqual([]);
	});

	it("target: one file read again and again; not one file read in chunks at different offsets", () => {
		const again = Array.from({ length: 14 }, () => read("src/a.ts", 1, 50));
		expect(kinds(feed(again))).toContain("target");
		const chunks = Array.from({ length: 30 }, (_, i) => read("src/big.ts", i * 50 + 1, 50));
		expect(kinds(feed(chunks))).toEqual([]);
	});

	it("target: a read-only role gets the lower limit", () => {
		// Eleven searches for one pattern in three places: eight of them answer what they answered before.
		const calls = () =>
			Array.from({ length: 11 }, (_, i) =>
				rec(
					"grep",
					{ pattern: "handoff", path: ["src", "test", "docs"][i % 3] },
					`${["src", "test", "docs"][i % 3]}/a.ts:1: handoff`,
				),
			);
		expect(kinds(feed(calls())).includes("target")).toBe(false);
		expect(kinds(feed(calls(), new LoopDetector({}, { readOnly: true })))).toContain("target");
	});

	it("stale: many calls that return what their file or command already returned; not steady work across many files", () => {
		const empty = Array.from({ length: 10 }, (_, i) =>
			bash(`git diff ${["HEAD", "--cached", "main"][i % 3]} -- src/adapter.ts${i % 2 ? " | head -50" : ""}`, "\n"),
		);
		expect(kinds(feed(empty))).toContain("stale");
		const many = Array.from({ length: 60 }, (_, i) =>
			bash(`git diff v1..v2 -- src/file${i}.ts`, i % 4 ? `+ change ${i}` : "\n"),
		);
		expect(kinds(feed(many))).toEqual([]);
	});

	it("dominant: one call taking over the session with nothing landed; not once something lands", () => {
		const calls = Array.from({ length: 30 }, (_, i) =>
			i % 2 ? bash("git status --short", " M src/a.ts") : read(`src/f${i}.ts`),
		);
		expect(kinds(feed(calls))).toContain("dominant");
		const landing = calls.map((c, i) => (i % 6 === 5 ? rec("edit", { path: `src/f${i}.ts` }, "Edited") : c));
		expect(kinds(feed(landing)).includes("dominant")).toBe(false);
	});

	it("reread: a file read several times its length; not read once in full and then in parts", () => {
		const rereads = Array.from({ length: 4 }, () => read("src/long.ts", 1, 200));
		expect(kinds(feed(rereads, new LoopDetector({ targetHits: 100 })))).toContain("reread");
		const once = [read("src/long.ts", 1, 200), read("src/long.ts", 201, 200), read("src/long.ts", 150, 60)];
		expect(kinds(feed(once))).toEqual([]);
	});

	it("cycle: A-B-A-B with the same results; not when the results move on", () => {
		const ab = Array.from({ length: 6 }, (_, i) =>
			i % 2 ? bash("npm run build", "error TS2322") : bash("cat src/a.ts", "const a = 1"),
		);
		expect(kinds(feed(ab, new LoopDetector({ repeats: 10 })))).toContain("cycle");
		const moving = Array.from({ length: 6 }, (_, i) =>
			i % 2 ? bash("npm run build", `error TS2322 at line ${i}`) : bash("cat src/a.ts", `const a = ${i}`),
		);
		expect(kinds(feed(moving, new LoopDetector({ repeats: 10 })))).toEqual([]);
	});

	it("landing and a real user prompt reset everything", () => {
		const d = new LoopDetector();
		n = 0;
		for (let i = 0; i < 4; i++) d.add(bash("npm test", "FAIL"));
		d.add(rec("write", { path: "a.ts" }, "Wrote a.ts"));
		expect(d.add(bash("npm test", "FAIL"))).toEqual([]);
		for (let i = 0; i < 3; i++) d.add(bash("npm test", "FAIL"));
		d.reset();
		expect(d.add(bash("npm test", "FAIL"))).toEqual([]);
		expect(d.snapshot()).toMatchObject({ callsSinceLanding: 1, lastLanded: 4 });
	});

	it("a failed write or a commit that committed nothing does not count as landing", () => {
		const calls = [
			...Array.from({ length: 3 }, () => bash("npm test", "FAIL")),
			rec("write", { path: "a.ts" }, "EACCES", true),
			bash("git commit -am wip", "nothing to commit, working tree clean"),
			bash("npm test", "FAIL"),
			bash("npm test", "FAIL"),
		];
		expect(kinds(feed(calls))).toContain("repeat");
	});
});
