// The pure core of stopped-subtree verification: when an orchestration is at rest, what its
// fingerprint covers (and what it ignores), which stops are reviewed, the checker's verdict
// on one child from recorded events, and the message that goes to the parent's model.
import { describe, expect, it } from "vitest";
import { fromPiToolCall, type SessionEvent } from "../../../src/transcript/index.ts";
import { judgeChild, logOf } from "../../../src/verify/child-check.ts";
import { queuedLaunchCalls } from "../../../src/verify/launch-calls.ts";
import {
	atRest,
	childHash,
	type LaunchView,
	leavesOf,
	needsReview,
	type StoppedChild,
	stopFingerprint,
	stopState,
	type VerifyConfig,
} from "../../../src/verify/stop-state.ts";
import { assemble, childFinding } from "../../../src/verify/verdicts.ts";

const CONFIG: VerifyConfig = { model: "faux/reviewer", thinking: "high", severityThreshold: "concern", policy: "keep" };
const child = (over: Partial<StoppedChild & Record<string, unknown>> = {}): StoppedChild =>
	({
		label: "worker",
		agent: "worker",
		task: "Fix greet",
		status: "done",
		answer: "Fixed greet. All tests pass.",
		cwd: "/repo",
		sessionFile: "/s/child.jsonl",
		blockers: { blockers: [], stalemate: false },
		...over,
	}) as StoppedChild;
const ended = (runId: string, results: StoppedChild[], background = false): LaunchView => ({
	runId,
	background,
	results,
	state: "done",
});
const reviewedOf = (launches: LaunchView[], config = CONFIG) => {
	const state = stopState(launches, config);
	return { fingerprint: stopFingerprint(state), childHashes: state.children.map((c) => childHash(c, config)) };
};

let n = 0;
const call = (name: string, args: Record<string, unknown>, result: string, isError = false): SessionEvent => ({
	type: "call",
	call: fromPiToolCall(n++, name, args, [{ type: "text", text: result }], isError, undefined),
});
const events = (...list: SessionEvent[]): SessionEvent[] => {
	n = 0;
	return [{ type: "prompt", text: "Fix greet" }, ...list];
};

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

describe("one child against its own log", () => {
	it("finds a passing-tests claim with no test run unproven, with the tool-call indices", () => {
		// A shell command ran (so the pass is unproven, not contradicted by a log with no command at all).
		const log = logOf(
			events(
				call("bash", { command: "git status" }, "clean"),
				call("write", { path: "src/app.ts", content: "x" }, "Successfully wrote 1 bytes"),
				{
					type: "assistant",
					text: "Fixed greet. All tests pass.",
				},
			),
		);
		const check = judgeChild("r1", false, child(), log);
		expect(check).toMatchObject({ verdict: "unproven", claim: "All tests pass.", written: ["src/app.ts"] });
		expect(check.evidence).toBe("No test run in the session's tool log (tool calls 0–1 in /s/child.jsonl).");
		expect(check.instruction).toMatch(/^Run the tests after your last edit and report the real output and exit code/);
	});

	it("finds a failing run contradicted, and a passing run after the last edit genuine", () => {
		const failing = logOf(
			events(
				call("write", { path: "a.ts", content: "x" }, "ok"),
				call("bash", { command: "npm test" }, "Tests: 2 failed\nCommand exited with code 1", true),
				{ type: "assistant", text: "Done. `npm test` passes." },
			),
		);
		expect(judgeChild("r1", false, child({ answer: "Done. `npm test` passes." }), failing)).toMatchObject({
			verdict: "contradicted",
			instruction: expect.stringMatching(/^Fix what made `npm test` fail \(tool call 1 of your session\)/),
		});
		const passing = logOf(
			events(call("write", { path: "a.ts", content: "x" }, "ok"), call("bash", { command: "npm test" }, "1 passed"), {
				type: "assistant",
				text: "Done; `npm test` passed.",
			}),
		);
		expect(judgeChild("r1", false, child({ answer: "Done; `npm test` passed." }), passing)).toMatchObject({
			verdict: "genuine",
			checked: "test `npm test` passed after the last edit (call 1)",
		});
	});

	it("leaves changed files with nothing run after them to the model, and reads status, blockers and conflicts first", () => {
		const wrote = logOf(
			events(call("write", { path: "a.ts", content: "x" }, "ok"), {
				type: "assistant",
				text: "Implemented the greeting.",
			}),
		);
		expect(judgeChild("r1", false, child({ answer: "Implemented the greeting." }), wrote).verdict).toBeUndefined();
		expect(
			judgeChild("r1", false, child({ status: "failed", error: "No API key for provider anthropic" }), wrote),
		).toMatchObject({ verdict: "needs-user", who: expect.stringMatching(/^the user: No API key/) });
		expect(judgeChild("r1", false, child({ status: "timed out" }), wrote)).toMatchObject({ verdict: "unfinished" });
		expect(judgeChild("r1", false, child({ status: "stopped" }), wrote)).toMatchObject({ verdict: "stopped" });
		expect(
			judgeChild(
				"r1",
				false,
				child({ blockers: { blockers: [{ summary: "greet drops the name", severity: "blocker" }], stalemate: true } }),
				wrote,
			),
		).toMatchObject({ verdict: "unfinished", instruction: "Address the open blocker: greet drops the name." });
		expect(
			judgeChild(
				"r1",
				false,
				child({ landed: { status: "conflict", paths: [], conflicts: ["a.ts"], patchPath: "/runs/r1/worker.patch" } }),
				wrote,
			).instruction,
		).toMatch(/Apply the kept patch \/runs\/r1\/worker\.patch/);
		// A change kept in its worktree (no patch could be written): the worktree is named, never a patch that does not exist.
		const inWorktree = judgeChild(
			"r1",
			false,
			child({
				landed: {
					status: "conflict",
					paths: [],
					conflicts: [],
					reason: "its change could be neither landed nor saved as a patch (disk full)",
					worktreeDir: "/runs/r1/worktrees/1",
				},
			}),
			wrote,
		);
		expect(inWorktree.evidence).toBe(
			"It did not land: its change could be neither landed nor saved as a patch (disk full). Its files are still in its worktree at /runs/r1/worktrees/1.",
		);
		expect(inWorktree.instruction).toBe(
			"Take its change from /runs/r1/worktrees/1 by hand, or re-run the task on the current tree.",
		);
		const unreadable = judgeChild("r1", false, child(), { error: "ENOENT" });
		expect(unreadable.verdict).toBeUndefined();
		expect(unreadable.checked).toBe("its session file could not be read (ENOENT)");
	});
});

describe("the verdicts", () => {
	const unproven = judgeChild(
		"r1",
		true,
		child(),
		logOf(
			events(
				call("bash", { command: "git status" }, "clean"),
				call("write", { path: "src/app.ts", content: "x" }, "ok"),
				{
					type: "assistant",
					text: "Fixed greet. All tests pass.",
				},
			),
		),
	);

	it("sends one high finding per child whose stop does not hold, with the claim, the evidence and the re-run", () => {
		const f = childFinding(unproven);
		expect(f).toMatchObject({ importance: "high", severity: "concern", source: "verify", category: "test-gap" });
		expect(f.summary).toBe('worker (run r1): claim not backed by its own log: "All tests pass."');
		expect(f.evidence).toContain("Child worker (agent worker, background run r1) ended done.");
		// The line a collapsed finding shows is the evidence itself.
		expect(f.evidence.split("\n")[0]).toBe(
			"Evidence: No test run in the session's tool log (tool calls 0–1 in /s/child.jsonl).",
		);
		expect(f.recommendedAction).toMatch(
			/^Re-run worker with this instruction \(its background run has ended, so steer no longer reaches it and a finished child cannot be resumed\): subagent\(\{"agent":"worker","task":"Fix greet\\n\\nRun the tests/,
		);
		expect(f.recommendedAction).toContain('"async":true');
		const landed = judgeChild(
			"r1",
			true,
			child({ landed: { status: "applied", paths: ["src/app.ts"] } }),
			logOf(
				events(
					call("bash", { command: "git status" }, "clean"),
					call("write", { path: "src/app.ts", content: "x" }, "ok"),
					{
						type: "assistant",
						text: "Fixed greet. All tests pass.",
					},
				),
			),
		);
		expect(childFinding(landed).evidence).toContain("Its diff (from its worktree): landed in the tree: src/app.ts.");
		const person = childFinding({ ...unproven, verdict: "needs-user", who: "the user: an API key for anthropic" });
		expect(person.recommendedAction).toBe(
			"Ask the user: an API key for anthropic; do not re-run worker until that is settled.",
		);
	});

	it("keeps a file name as written at the start of the evidence", () => {
		const failed = judgeChild(
			"r1",
			true,
			child(),
			logOf(
				events(call("write", { path: "notes.md", content: "x" }, "EACCES: permission denied", true), {
					type: "assistant",
					text: "I wrote notes.md with the summary.",
				}),
			),
		);
		expect(failed.evidence).toMatch(/^notes\.md: the write at call 0 /);
	});

	it("notes genuine and earlier children for the user and sends nothing when all hold", () => {
		const genuine = {
			...unproven,
			label: "scout",
			verdict: "genuine" as const,
			checked: "changed nothing; 1 claim(s) checked",
		};
		const all = assemble([genuine], [{ label: "worker", verdict: "unproven" }], "ab".repeat(32));
		expect(all.findings).toEqual([]);
		expect(all.outcome).toBe("genuine");
		expect(all.note).toBe(
			"Watchdog verified 1 stopped child [abababababab]: scout genuine (changed nothing; 1 claim(s) checked); 1 verified earlier, unchanged.",
		);
		// However many re-runs came before, the note stays one line of the same length.
		const many = Array.from({ length: 30 }, (_, i) => ({ label: `worker#${i}`, verdict: "unproven" }));
		expect(assemble([genuine], many, "ab".repeat(32)).note).toMatch(/; 30 verified earlier, unchanged\.$/);
		const mixed = assemble([genuine, unproven], [], "cd".repeat(32));
		expect(mixed.findings).toHaveLength(1);
		expect(mixed).toMatchObject({ outcome: "problems", verdicts: "scout genuine, worker unproven" });
		expect(mixed.note).toContain("worker unproven (1 claim(s) against its tool log; told the agent)");
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
