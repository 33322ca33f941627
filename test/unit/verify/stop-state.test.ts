// The pure core of stopped-subtree verification: when an orchestration is at rest, what its
// fingerprint covers (and what it ignores), which stops are reviewed, and how a tree of children
// (children that launched children) is verified leaf by leaf.
import { describe, expect, it } from "vitest";
import { judgeChild, logOf } from "../../../src/verify/child-check.ts";
import { queuedLaunchCalls } from "../../../src/verify/launch-calls.ts";
import {
	atRest,
	type LaunchView,
	leavesOf,
	needsReview,
	type StoppedChild,
	stopFingerprint,
	stopState,
} from "../../../src/verify/stop-state.ts";
import { childFinding } from "../../../src/verify/verdicts.ts";
import { CONFIG, call, child, ended, events, reviewedOf } from "./stop-fixtures.ts";

describe("at rest", () => {
	it("needs every launch ended and nothing queued", () => {
		expect(atRest({ launches: [], queued: 0 })).toBe(false);
		expect(atRest({ launches: [ended("r1", [child()]), { runId: "r2", background: true }], queued: 0 })).toBe(false);
		expect(atRest({ launches: [ended("r1", [child()])], queued: 1 })).toBe(false);
		expect(atRest({ launches: [ended("r1", [child()]), ended("r2", [], true)], queued: 0 })).toBe(true);
	});

	it("counts launch calls of the current step that have no result and have not started", () => {
		const assistant = {
			type: "message",
			message: {
				role: "assistant",
				content: [
					{ type: "toolCall", id: "a", name: "subagent", arguments: { agent: "worker", task: "x" } },
					{ type: "toolCall", id: "b", name: "subagent", arguments: { agent: "scout", task: "y" } },
					{ type: "toolCall", id: "c", name: "subagent", arguments: { action: "status" } },
					{ type: "toolCall", id: "d", name: "read", arguments: { path: "x" } },
				],
			},
		};
		const result = (id: string) => ({ type: "message", message: { role: "toolResult", toolCallId: id } });
		expect(queuedLaunchCalls([assistant], new Set(["a"]))).toBe(1);
		expect(queuedLaunchCalls([assistant, result("b")], new Set(["a"]))).toBe(0);
		expect(queuedLaunchCalls([assistant, { type: "custom_message" }, result("a")], new Set())).toBe(1);
		expect(
			queuedLaunchCalls([assistant, { type: "message", message: { role: "user", content: "next" } }], new Set()),
		).toBe(0);
	});
});

describe("the stop fingerprint", () => {
	const base = [
		ended("r1", [child()]),
		ended("r2", [child({ label: "scout", agent: "scout", answer: "greet is in src/app.ts." })], true),
	];
	const fp = (launches: LaunchView[], config = CONFIG) => stopFingerprint(stopState(launches, config));

	it("ignores timestamps, costs, counts, notices and the watchdog's own findings", () => {
		const noisy = base.map((l) => ({
			...l,
			results: l.results?.map((r) => ({
				...r,
				tokens: 91234,
				cost: 0.42,
				toolCalls: 17,
				at: Date.now(),
				notices: ["Watchdog: review failed"],
				findings: [{ summary: "a note the watchdog sent", severity: "concern" }],
			})),
		}));
		expect(fp(noisy)).toBe(fp(base));
		// the order launches are listed in does not matter either
		expect(fp([...base].reverse())).toBe(fp(base));
		expect(fp(base)).toMatch(/^[0-9a-f]{64}$/);
	});

	it("changes with a child's status, claims, open blockers, pending asks, landing, and the configuration", () => {
		const withFirst = (over: Partial<StoppedChild>) => [ended("r1", [child(over)]), base[1] as LaunchView];
		const different = [
			withFirst({ status: "failed" }),
			withFirst({ answer: "Fixed greet. The build succeeds." }),
			withFirst({
				blockers: { blockers: [{ summary: "greet drops the name", severity: "blocker" }], stalemate: false },
			}),
			withFirst({ pendingAsks: ["write src/app.ts"] }),
			withFirst({ landed: { status: "conflict", paths: [], conflicts: ["src/app.ts"] } }),
		].map((l) => fp(l));
		for (const other of different) expect(other).not.toBe(fp(base));
		expect(fp(base, { ...CONFIG, model: "faux/other" })).not.toBe(fp(base));
		// a rewording that claims the same is the same stop
		expect(fp(withFirst({ answer: "Fixed greet.   All tests pass." }))).toBe(fp(base));
	});

	it("reviews a stop once, not again when it only shrank, and again when it grew or changed", () => {
		const reviewed = [reviewedOf(base)];
		expect(needsReview(stopState(base, CONFIG), reviewed)).toMatchObject({
			review: false,
			why: "this stopped state was reviewed already",
		});
		expect(needsReview(stopState([base[1] as LaunchView], CONFIG), reviewed)).toMatchObject({
			review: false,
			why: "only a part of a reviewed stopped state",
		});
		expect(
			needsReview(stopState([...base, ended("r3", [child({ label: "worker#2" })])], CONFIG), reviewed).review,
		).toBe(true);
		expect(needsReview(stopState([ended("r1", [child({ status: "failed" })])], CONFIG), reviewed).review).toBe(true);
		expect(needsReview(stopState([ended("r9", [])], CONFIG), []).review).toBe(false);
	});
});

describe("a tree of children", () => {
	const tester = (over: Partial<StoppedChild> = {}) => child({ label: "tester", agent: "tester", ...over });
	const lead = (below: StoppedChild[][], over: Partial<StoppedChild> = {}) =>
		child({
			label: "lead",
			agent: "lead",
			answer: "SAW: done",
			below: below.map((results, i) => ({ runId: `r-below-${i}`, results })),
			...over,
		});

	it("verifies every leaf, each named by its path, and never the children that only launched", () => {
		const leaves = leavesOf([
			ended("r1", [lead([[tester(), tester({ label: "tester#2" })]]), child({ label: "scout" })]),
		]);
		expect(leaves.map((l) => [l.runId, l.child.label])).toEqual([
			["r-below-0", "lead > tester"],
			["r-below-0", "lead > tester#2"],
			["r1", "scout"],
		]);
		// a child whose own launches brought nothing back is a leaf itself
		expect(leavesOf([ended("r1", [lead([[]])])]).map((l) => l.child.label)).toEqual(["lead"]);
	});

	it("a change below wakes one new verification; a stop that only shrank does not", () => {
		const first = [ended("r1", [lead([[tester()]]), child({ label: "scout" })])];
		const reviewed = [reviewedOf(first)];
		expect(needsReview(stopState(first, CONFIG), reviewed).review).toBe(false);
		const changed = [
			ended("r1", [lead([[tester({ answer: "Now all tests pass, really." })]]), child({ label: "scout" })]),
		];
		expect(needsReview(stopState(changed, CONFIG), reviewed).review).toBe(true);
		const grown = [ended("r1", [lead([[tester()], [tester({ label: "fixer" })]]), child({ label: "scout" })])];
		expect(needsReview(stopState(grown, CONFIG), reviewed).review).toBe(true);
		const shrunk = [ended("r1", [lead([[tester()]])])];
		expect(needsReview(stopState(shrunk, CONFIG), reviewed)).toMatchObject({ review: false });
	});

	it("tells the parent the path to an unproven leaf and the re-run call it can make itself", () => {
		const [leaf] = leavesOf([ended("r1", [lead([[tester({ answer: "Wrote it. All tests pass." })]])])]);
		const check = judgeChild(
			leaf.runId,
			leaf.background,
			leaf.child,
			logOf(events(call("write", { path: "a.ts", content: "x" }, "ok"))),
		);
		check.verdict ??= "unproven";
		const finding = childFinding(check);
		expect(finding.summary).toMatch(/^lead > tester \(run r-below-0\): /);
		expect(finding.recommendedAction).toMatch(
			/^Re-run lead > tester from here with this instruction \(lead has ended, so it cannot re-run it; launch the tester agent yourself\): subagent\(\{"agent":"tester"/,
		);
	});

	it("a child that stopped with a denied call the user may still allow waits on the user, and its stop is new", () => {
		const waiting = tester({ pendingAsks: ["1x20a write"] });
		const check = judgeChild(
			"r1",
			false,
			waiting,
			logOf(events(call("write", { path: "a.ts", content: "x" }, "denied", true))),
		);
		expect(check).toMatchObject({
			verdict: "needs-user",
			who: expect.stringContaining("/subagents-watchdog allow 1x20a"),
		});
		const before = [reviewedOf([ended("r1", [tester()])])];
		expect(needsReview(stopState([ended("r1", [waiting])], CONFIG), before).review).toBe(true);
	});
});
