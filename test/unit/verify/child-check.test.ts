// The checker's verdict on one stopped child from its recorded events (status, blockers, landing,
// and its claims against its own tool log), and the findings and note that go to the parent's model.
import { describe, expect, it } from "vitest";
import { judgeChild, logOf } from "../../../src/verify/child-check.ts";
import { assemble, childFinding } from "../../../src/verify/verdicts.ts";
import { call, child, events } from "./stop-fixtures.ts";

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
