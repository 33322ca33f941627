// Activity reviews (clarification on, main session) in a real Pi session: a run that only
// orchestrated children (real `subagent` launches of in-process child sessions on the faux
// model) and changed nothing locally gets one review per user prompt, with the activity tail.
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { ask, CLARIFY, historyLines, type ReviewerView, view } from "./clarify-helpers.ts";
import { allText, type Ctx, ON, toolUse, warn } from "./review-helpers.ts";

/** A parent turn that launches a scout, the scout's answer, and the parent's closing line. */
const scoutRun = (task: string, answer: string, closing: string) => [
	toolUse("subagent", { agent: "scout", task }),
	fauxAssistantMessage(answer),
	fauxAssistantMessage(closing),
];

describe("activity reviews", () => {
	it("reviews a run that only launched a child, with the launch and its result, once per prompt", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const t = await startSession({ cwd: repo, userSettings: CLARIFY });
		const views: ReviewerView[] = [];
		t.main.setResponses([
			...scoutRun(
				"Find where greet is defined",
				"greet is defined in src/app.ts line 1.",
				"The scout found greet in src/app.ts.",
			),
			...scoutRun("Find the tests of greet", "There are no tests for greet.", "No tests exist yet."),
		]);
		t.reviewer.setResponses([(ctx) => (views.push(view(ctx)), fauxAssistantMessage("clean"))]);
		try {
			await t.session.prompt("Find greet and its tests, then tell me");
			await t.session.waitForIdle();
			expect(views).toHaveLength(1);
			expect(views[0].input).toMatch(/## Orchestration activity\n/);
			expect(views[0].input).toMatch(
				/\(new\) \[subagent launch\] \{"agent":"scout","task":"Find where greet is defined"\}\n\[result\]\n[\s\S]*greet is defined in src\/app\.ts line 1\./,
			);
			expect(views[0].input).toMatch(/Nothing changed locally: this run orchestrated child agents/);
			expect(views[0].input).toMatch(/## Changed paths \(0\)/);
			expect(views[0].tools).toContain("watchdog_ask");
			expect(historyLines(t).find((l) => l.kind === "review")).toMatchObject({
				trigger: "activity",
				outcome: "clean",
				paths: 0,
			});
			const status = (await t.command("/subagents-watchdog status --all")).map((n) => n.message).join("\n");
			expect(status).toMatch(
				/Clarification:\n.*on \(main session\)[\s\S]*question not asked, activity review done\n.*activity tail: 1 entry, \d+ of 6000 characters/,
			);

			// Another run in the same prompt (started by something else) launches a child again: no second review.
			await t.session.sendCustomMessage(
				{ customType: "other-extension", content: "Look for tests too.", display: true },
				{ triggerTurn: true },
			);
			await t.session.waitForIdle();
			expect(t.reviewer.state.callCount).toBe(1);
		} finally {
			await t.dispose();
		}
	});

	it("reviews the next prompt's orchestration again, with the earlier activity as context", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: CLARIFY });
		const views: ReviewerView[] = [];
		t.main.setResponses([
			...scoutRun("first look", "first answer", "first done"),
			...scoutRun("second look", "second answer", "second done"),
		]);
		t.reviewer.setResponses([
			(ctx) => (views.push(view(ctx)), fauxAssistantMessage("clean")),
			(ctx) => (views.push(view(ctx)), fauxAssistantMessage("clean")),
		]);
		try {
			await t.session.prompt("look once");
			await t.session.waitForIdle();
			await t.session.prompt("look again");
			await t.session.waitForIdle();
			expect(views).toHaveLength(2);
			expect(views[1].input).toMatch(/\n\[subagent launch\] \{"agent":"scout","task":"first look"\}/); // seen before: not marked new
			expect(views[1].input).toMatch(/\(new\) \[subagent launch\] \{"agent":"scout","task":"second look"\}/);
		} finally {
			await t.dispose();
		}
	});

	it("a finding's continuation cannot supply fresh activity", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: CLARIFY });
		let continuation = "";
		t.main.setResponses([
			toolUse("write", { path: "a.txt", content: "b\n" }),
			fauxAssistantMessage("Changed a.txt."),
			// the continuation answers the finding by asking a child, and changes nothing locally
			(ctx) => ((continuation = allText(ctx as Ctx)), toolUse("subagent", { agent: "scout", task: "check a.txt" })),
			fauxAssistantMessage("a.txt reads b."),
			fauxAssistantMessage("The scout confirms a.txt."),
		]);
		t.reviewer.setResponses([
			warn({ summary: "a.txt lost its content", evidence: "a.txt now reads b" }),
			fauxAssistantMessage("r1"),
			fauxAssistantMessage("clean"),
		]);
		try {
			await t.session.prompt("change a.txt");
			await t.session.waitForIdle();
			expect(continuation).toContain("a.txt lost its content");
			expect(t.main.state.callCount).toBe(5);
			expect(t.reviewer.state.callCount).toBe(2); // the boundary review only
		} finally {
			await t.dispose();
		}
	});

	it("an activity review may ask; the continuation carries the question and its own orchestration triggers nothing", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: CLARIFY });
		let continuation = "";
		t.main.setResponses([
			...scoutRun("Ask the worker's status", "Two lanes are still running.", "Launched the check."),
			(ctx) => ((continuation = allText(ctx as Ctx)), toolUse("subagent", { action: "status" })),
			fauxAssistantMessage("Lane B is on hold until the user confirms the schema."),
		]);
		t.reviewer.setResponses([
			ask({
				question: "Is lane B on hold on purpose, or was it forgotten?",
				evidence: "The scout says two lanes are still running; the scope asks for both to finish",
			}),
		]);
		try {
			await t.session.prompt("Finish both lanes");
			await t.session.waitForIdle();
			expect(continuation).toContain("Is lane B on hold on purpose, or was it forgotten?");
			expect(t.reviewer.state.callCount).toBe(1);
			expect(t.main.state.callCount).toBe(5);
			expect(
				historyLines(t)
					.filter((l) => l.kind === "question")
					.map((l) => l.outcome),
			).toEqual(["delivered"]);
		} finally {
			await t.dispose();
		}
	});

	it("compaction clears the activity tail", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		// Keep almost nothing verbatim, so Pi's own /compact has something to summarise in a small session.
		const t = await startSession({
			cwd: repo,
			userSettings: { ...CLARIFY, compaction: { enabled: false, keepRecentTokens: 1 } },
		});
		const views: ReviewerView[] = [];
		t.main.setResponses([
			...scoutRun("before compaction", "first answer", "first done"),
			fauxAssistantMessage("Summary of the session so far."),
			...scoutRun("after compaction", "second answer", "second done"),
		]);
		t.reviewer.setResponses([
			(ctx) => (views.push(view(ctx)), fauxAssistantMessage("clean")),
			(ctx) => (views.push(view(ctx)), fauxAssistantMessage("clean")),
		]);
		try {
			await t.session.prompt("look once");
			await t.session.waitForIdle();
			await t.session.compact();
			await t.session.prompt("look again");
			await t.session.waitForIdle();
			expect(views).toHaveLength(2);
			expect(views[0].input).toContain("before compaction");
			expect(views[1].input).toContain("after compaction");
			expect(views[1].input).not.toContain("before compaction");
		} finally {
			await t.dispose();
		}
	});

	it("with clarification off, a run that only launched children is not reviewed", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		t.main.setResponses(scoutRun("look", "answer", "done"));
		t.reviewer.setResponses([fauxAssistantMessage("clean")]);
		try {
			await t.session.prompt("look around");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(3);
			expect(t.reviewer.state.callCount).toBe(0);
		} finally {
			await t.dispose();
		}
	});
});
