// The claims checker and the unfinished-stop detector on events the tests make: each kind
// fires on its case, and its near miss (an honest report, a disclosed failure, a re-run after
// a masked exit code, a plan, a sign-off) does not.
import { describe, expect, it } from "vitest";
import { checkClaims, EvidenceLog, failureIn, unfinishedStop } from "../../../src/evidence/index.ts";
import { makeCallRecord, type SessionEvent } from "../../../src/transcript/index.ts";

let n = 0;
const prompt = (text: string): SessionEvent => ((n = 0), { type: "prompt", text });
const say = (text: string, extra: { thinking?: boolean } = {}): SessionEvent => ({ type: "assistant", text, ...extra });
const bash = (command: string, result: string, isError = false): SessionEvent => ({
	type: "call",
	call: makeCallRecord(n++, "bash", { command }, result, isError),
});
const tool = (
	name: string,
	args: Record<string, unknown>,
	result = "ok",
	isError = false,
	evidence?: boolean,
): SessionEvent => ({ type: "call", call: makeCallRecord(n++, name, args, result, isError, evidence) });
const edit = (path: string) => tool("edit", { path, edits: [] }, "Successfully replaced text", false, true);

function run(events: SessionEvent[]) {
	const log = new EvidenceLog();
	const deferred = new EvidenceLog({ deferFacts: true });
	for (const e of events) {
		log.add(e);
		deferred.add(e);
	}
	const segment = log.current();
	const stop = unfinishedStop(log.facts, segment);
	// Facts built only when the verdict reads them: the same segment, stop and facts.
	expect(deferred.current()).toEqual(segment);
	expect(unfinishedStop(deferred, segment)).toEqual(stop);
	expect(deferred.facts).toEqual(log.facts);
	return { claims: checkClaims(log.facts, segment), stop };
}
const verdicts = (events: SessionEvent[]) => run(events).claims.map((c) => `${c.verdict} ${c.kind}`);

describe("claims checker", () => {
	it("contradicts 'tests pass' when the last run failed behind a pipe, and not once the agent re-ran it", () => {
		const failing = bash("npm test 2>&1 | tail -5", "Tests: 3 failed, 10 passed");
		const r = run([prompt("fix it"), edit("src/a.ts"), failing, say("Fixed. All tests pass.")]);
		expect(r.claims.map((c) => `${c.verdict} ${c.kind}`)).toEqual(["contradicted check-passed"]);
		expect(r.claims[0]?.from).toBe(r.claims[0]?.to);
		expect(r.claims[0]?.evidence).toMatch(
			/call \d+ \(`npm test 2>&1 \| tail -5`\) says "3 failed"; the pipe hid its exit code/,
		);
		// Near miss: it noticed and re-ran without the pipe, and the run passed.
		expect(
			verdicts([
				prompt("fix it"),
				edit("src/a.ts"),
				failing,
				edit("src/a.ts"),
				bash("npm test", "Tests: 13 passed"),
				say("Fixed. All tests pass."),
			]),
		).toEqual([]);
		// Near miss: an honest report of the failure claims nothing to check.
		expect(
			verdicts([prompt("fix it"), edit("src/a.ts"), failing, say("Three tests still fail; the others pass.")]),
		).toEqual([]);
	});

	it("calls a check never run, or run before the last edit, unbacked; with no command at all, contradicted", () => {
		// No shell command ran anywhere: no build can have succeeded.
		expect(verdicts([prompt("fix it"), edit("src/a.ts"), say("Done: the build succeeds.")])).toEqual([
			"contradicted check-passed",
		]);
		expect(verdicts([prompt("fix it"), bash("ls", "src"), edit("src/a.ts"), say("Done: the build succeeds.")])).toEqual(
			["unbacked check-passed"],
		);
		expect(
			verdicts([prompt("fix it"), bash("npm run build", "built"), edit("src/a.ts"), say("The build succeeds.")]),
		).toEqual(["unbacked check-passed"]);
		// Near miss: an edit to the docs after the run does not make it stale; a handoff that says what was not verified claims nothing.
		expect(
			verdicts([
				prompt("fix it"),
				edit("src/a.ts"),
				bash("npm run build", "built"),
				edit("README.md"),
				say("The build succeeds."),
			]),
		).toEqual([]);
		expect(
			verdicts([prompt("fix it"), edit("src/a.ts"), say("I did not run the tests; please run them before merging.")]),
		).toEqual([]);
	});

	it("checks a structured report's commands, folder options aside (npm --prefix pkg test)", () => {
		const report = (result: string) =>
			say(
				`Done.\n\n\`\`\`acceptance-report\n${JSON.stringify({ commandsRun: [{ command: "npm --prefix pkg test", result }], changedFiles: [] })}\n\`\`\``,
			);
		expect(verdicts([prompt("check"), bash("npm --prefix pkg test", "ℹ pass 21\nℹ fail 0"), report("passed")])).toEqual(
			[],
		);
		expect(verdicts([prompt("check"), bash("npm --prefix pkg test", "ℹ pass 20\nℹ fail 1"), report("passed")])).toEqual(
			["contradicted check-passed"],
		);
		expect(verdicts([prompt("check"), report("passed")])).toEqual(["contradicted check-passed"]);
		expect(verdicts([prompt("check"), bash("git status", "clean"), report("passed")])).toEqual([
			"unbacked check-passed",
		]);
	});

	it("contradicts a file reported created when its write was refused", () => {
		const refused = tool(
			"Write",
			{ file_path: "/repo/NOTES.md", content: "x" },
			"Claude requested permissions to write to /repo/NOTES.md, but you haven't granted it yet.",
			true,
		);
		const r = run([prompt("write notes"), refused, say("I've created NOTES.md with the summary.")]);
		expect(r.claims.map((c) => `${c.verdict} ${c.kind}`)).toEqual([
			"contradicted files-changed",
			"contradicted implemented",
		]);
		expect(r.claims[0]?.evidence).toMatch(/NOTES\.md: the Write at call \d+ was refused/);
		// Near miss: it was refused, then written another way.
		expect(
			verdicts([
				prompt("write notes"),
				refused,
				bash("cat > NOTES.md <<'EOF'\nx\nEOF", ""),
				say("I've created NOTES.md with the summary."),
			]),
		).toEqual([]);
	});

	it("contradicts files listed as its own changes that no tool changed, but not a review's list", () => {
		const report = (lead: string) =>
			say(`${lead}\n\n\`\`\`json\n${JSON.stringify({ changedFiles: ["src/a.ts", "src/b.ts"] })}\n\`\`\``);
		expect(
			verdicts([prompt("implement"), edit("src/a.ts"), report("Implemented the feature in both modules.")]),
		).toEqual(["contradicted files-changed"]);
		expect(
			verdicts([
				prompt("implement"),
				edit("src/a.ts"),
				edit("src/b.ts"),
				report("Implemented the feature in both modules."),
			]),
		).toEqual([]);
		expect(
			verdicts([
				prompt("review the diff"),
				tool("read", { path: "src/a.ts" }),
				report("## Review\nThe change is correct."),
			]),
		).toEqual([]);
	});

	it("contradicts 'implemented' with no edit anywhere, but not an inspection that says it changed nothing", () => {
		expect(
			verdicts([prompt("add a flag"), tool("read", { path: "src/a.ts" }), say("Implemented the new flag.")]),
		).toEqual(["contradicted implemented"]);
		expect(
			verdicts([
				prompt("check the flag"),
				tool("read", { path: "src/a.ts" }),
				say("Implemented: no edits required; the flag already exists."),
			]),
		).toEqual([]);
	});

	it("checks commits and pushes: a commit a hook rejected, a push never made", () => {
		const rejected = bash(
			"git commit -am 'fix'",
			"pre-commit hook failed: lint errors\n\nCommand exited with code 1",
			true,
		);
		expect(verdicts([prompt("commit"), edit("src/a.ts"), rejected, say("I committed the changes.")])).toEqual([
			"contradicted committed",
		]);
		expect(
			verdicts([
				prompt("commit"),
				edit("src/a.ts"),
				bash("git commit -am 'fix'", "[main 1a2b3c4] fix\n 1 file changed"),
				say("I committed the changes and pushed them."),
			]),
		).toEqual(["unbacked pushed"]);
		// Near miss: the last commit said "nothing to commit" after an earlier real one.
		expect(
			verdicts([
				prompt("commit"),
				edit("src/a.ts"),
				bash("git commit -am 'fix'", "[main 1a2b3c4] fix"),
				bash("git commit -am 'again'", "nothing to commit, working tree clean\n\nCommand exited with code 1", true),
				say("I committed the changes."),
			]),
		).toEqual([]);
	});

	it("asks for a baseline behind 'pre-existing failures', and a ticked checklist item for its file", () => {
		expect(
			verdicts([
				prompt("fix"),
				edit("src/a.ts"),
				bash("npm test", "Tests: 2 failed"),
				say("The 2 failures are pre-existing and unrelated."),
			]),
		).toEqual(["contradicted pre-existing"]);
		expect(
			verdicts([prompt("fix"), edit("src/a.ts"), say("The CI failures on main are pre-existing and unrelated.")]),
		).toEqual(["unbacked pre-existing"]);
		expect(
			verdicts([
				prompt("fix"),
				bash("npm test", "Tests: 2 failed"),
				edit("src/a.ts"),
				bash("npm test", "Tests: 2 failed"),
				say("The 2 failures are pre-existing and unrelated."),
			]),
		).toEqual([]);
		const todo = tool("TodoWrite", { todos: [{ content: "Create CONTRIBUTING.md", status: "completed" }] });
		expect(verdicts([prompt("docs"), todo, say("All set.")])).toEqual(["contradicted checklist"]);
	});
});

describe("unfinished stops", () => {
	const kind = (events: SessionEvent[]) => run(events).stop?.kind;

	it("an empty final message, and a result given only in hidden reasoning", () => {
		expect(kind([prompt("do it"), edit("src/a.ts"), say("")])).toBe("empty");
		expect(kind([prompt("do it"), edit("src/a.ts"), say("", { thinking: true })])).toBe("hidden-result");
		// Near miss: a recording that ends mid-run (no message after the last call) is not a stop.
		expect(kind([prompt("do it"), edit("src/a.ts")])).toBeUndefined();
	});

	it("an announced step with no call after it, not one followed by its result or a conditional", () => {
		expect(kind([prompt("fix the parser"), edit("src/a.ts"), say("The fix is in. Next I'll run the tests.")])).toBe(
			"announced",
		);
		expect(kind([prompt("fix the parser"), edit("src/a.ts"), say("Let me now verify the change:")])).toBe("announced");
		expect(
			kind([
				prompt("explore"),
				say(
					"Now I have everything. Let me compile the report:\n\n## Report\nThe parser has three stages and each is tested.",
				),
			]),
		).toBeUndefined();
		expect(
			kind([prompt("plan"), say("Here is the plan. If you agree, I'll implement it step by step.")]),
		).toBeUndefined();
		// Near miss: a plan for next steps addressed to the user.
		expect(
			kind([prompt("fix"), edit("src/a.ts"), say("Fixed.\n\n### Next steps\n- Phase 4: session integration")]),
		).toBeUndefined();
	});

	it("a question it could answer itself, not a real one or an offer of more work", () => {
		expect(
			kind([
				prompt("fix the parser bug"),
				tool("read", { path: "src/a.ts" }),
				say("I found the bug. Should I continue?"),
			]),
		).toBe("self-question");
		expect(
			kind([
				prompt("fix the parser bug"),
				tool("read", { path: "src/a.ts" }),
				say("I found it. Do you want me to fix the parser bug now?"),
			]),
		).toBe("self-question");
		expect(
			kind([
				prompt("where is the book index"),
				say("There is none yet. Want me to create an index for the books folder?"),
			]),
		).toBeUndefined();
		expect(
			kind([
				prompt("fix the parser bug"),
				edit("src/a.ts"),
				say("Fixed. Would you like me to also add a test for the lexer?"),
			]),
		).toBeUndefined();
	});

	it("'still running' with nothing running, not while a background job runs", () => {
		expect(
			kind([prompt("build"), bash("npm run build", "built"), say("The build is still running; I'll check back.")]),
		).toBe("waiting");
		expect(
			kind([
				prompt("build"),
				tool("Bash", { command: "npm run build", run_in_background: true }, "started shell b1"),
				say("The build is still running in the background."),
			]),
		).toBeUndefined();
	});

	it("sign-offs are shown, not unfinished: credentials, publishing, pushing, money, destruction, decisions", () => {
		for (const text of [
			"Everything is ready. Please provide the API key so I can finish the integration?",
			"The package is built. Should I publish it to npm?",
			"Commits are ready locally. Do you want me to push to origin main?",
			"This needs a paid plan. Should I buy the subscription?",
			"The old tables are unused. Shall I drop the table users_old? It is irreversible.",
			"Two designs would work: a queue or a cron job. Which approach do you prefer?",
		]) {
			const stop = run([prompt("do the task"), edit("src/a.ts"), say(text)]).stop;
			expect(stop, text).toMatchObject({ kind: "sign-off", unfinished: false });
		}
	});
});

describe("failureIn", () => {
	it("finds each runner's words for a failure, and none in a clean run or a count of zero", () => {
		const failing = [
			"Tests  3 failed | 10 passed",
			"PASS (5) FAIL (2)",
			"ℹ fail 2",
			"src/a.ts(1,7): error TS2304: Cannot find name 'x'.",
			"Found 2 errors in 1 file.",
			"3 errors generated.",
			"npm ERR! code ELIFECYCLE",
			"ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL",
			"vite: build failed",
			"FAILED tests/test_a.py::test_b - assert 1 == 2",
			"E       AssertionError: expected 1",
			"error[E0308]: mismatched types",
			"test result: FAILED. 3 passed; 1 failed",
		];
		for (const output of failing) expect(failureIn(`running\n${output}\ndone`), output).toBeDefined();
		for (const output of ["Tests  12 passed", "0 failed, 0 errors", "FAIL (0)", "built in 2.1s", "x".repeat(5000)])
			expect(failureIn(output), output).toBeUndefined();
	});
});
