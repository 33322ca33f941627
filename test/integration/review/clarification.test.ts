// Clarification (`clarification: true`, main session) in a real Pi session: the reviewer's one
// question per prompt (`watchdog_ask`), and reminders of forgotten work routed by importance.
// Faux main and reviewer models, real git; the history log is the real file.
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { ask, CLARIFY, historyLines, type ReviewerView, view } from "./clarify-helpers.ts";
import { allText, type Ctx, entryKinds, text, toolUse, warn } from "./review-helpers.ts";

const write = (n: number) =>
	toolUse("write", { path: "src/app.ts", content: `export const greet = (name: string) => 'hi ${n}';\n` });

describe("watchdog_ask", () => {
	it("ends the review, and the agent's next request carries the question as the watchdog's question", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const t = await startSession({ cwd: repo, userSettings: CLARIFY });
		const seen: { reviewer?: ReviewerView; continuation?: string } = {};
		t.main.setResponses([
			write(1),
			fauxAssistantMessage("Done: greet is shorter."),
			(ctx) => (
				(seen.continuation = allText(ctx as Ctx)),
				fauxAssistantMessage("Yes: the user wants the name kept; I will restore it next.")
			),
		]);
		t.reviewer.setResponses([(ctx) => ((seen.reviewer = view(ctx)), ask()), fauxAssistantMessage("never reached")]);
		try {
			await t.session.prompt("Make greet shorter");
			await t.session.waitForIdle();
			expect(seen.reviewer?.tools).toEqual(expect.arrayContaining(["watchdog_warn", "watchdog_ask"]));
			expect(seen.reviewer?.system).toMatch(/One question \(`watchdog_ask`\)/);
			expect(t.reviewer.state.callCount).toBe(1); // asking yields: no further reviewer turn
			expect(seen.continuation).toContain("Did the user want greet to keep the name argument?");
			expect(seen.continuation).toMatch(/It is a question, not a warning, and not an approval/);
			expect(seen.continuation).toMatch(/If only the user can answer it, ask the user/);
			expect(t.main.state.callCount).toBe(3);
			expect(entryKinds(t)).toContain("custom_message:watchdog-question");
			expect(entryKinds(t)).not.toContain("custom_message:watchdog-finding");
			// The answer changed nothing: the consumed boundary is not reviewed again.
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/Pending: nothing/);
			const question = historyLines(t).find((l) => l.kind === "question");
			expect(question).toMatchObject({
				source: "main",
				outcome: "delivered",
				question: "Did the user want greet to keep the name argument?",
			});
			const history = (await t.command("/subagents-watchdog history")).map((n) => n.message).join("\n");
			expect(history).toMatch(
				/question\s+main\s+asked: Did the user want greet to keep the name argument\? → delivered/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("asks at most once per user prompt; the next prompt may ask again", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const t = await startSession({ cwd: repo, userSettings: CLARIFY });
		const views: ReviewerView[] = [];
		const contexts: string[] = [];
		const record = (reply: ReturnType<typeof fauxAssistantMessage>) => (ctx: unknown) => (
			contexts.push(allText(ctx as Ctx)), reply
		);
		t.main.setResponses([
			write(1),
			fauxAssistantMessage("done 1"),
			record(write(2)),
			fauxAssistantMessage("done 2"),
			write(3),
			fauxAssistantMessage("done 3"),
			fauxAssistantMessage("answered"),
		]);
		t.reviewer.setResponses([
			(ctx) => (views.push(view(ctx)), ask()),
			// The second review of the same prompt: no tool offered; a call anyway is refused.
			(ctx) => (views.push(view(ctx)), ask({ question: "A second question in the same prompt?" })),
			fauxAssistantMessage("clean"),
			(ctx) => (views.push(view(ctx)), ask({ question: "A question for the new prompt?" })),
		]);
		try {
			await t.session.prompt("Make greet shorter");
			await t.session.waitForIdle();
			expect(views).toHaveLength(2);
			expect(views[0].tools).toContain("watchdog_ask");
			expect(views[1].tools).not.toContain("watchdog_ask");
			expect(views[1].system).not.toMatch(/One question/);
			expect(t.main.state.callCount).toBe(4); // the question's continuation only; the refused second ask starts nothing
			const questions = t.session.sessionManager.getEntries().filter((e: any) => e.customType === "watchdog-question");
			expect(questions).toHaveLength(1);

			await t.session.prompt("Now make it say hello");
			await t.session.waitForIdle();
			expect(views).toHaveLength(3);
			expect(views[2].tools).toContain("watchdog_ask");
			expect(
				t.session.sessionManager.getEntries().filter((e: any) => e.customType === "watchdog-question"),
			).toHaveLength(2);
			expect(t.session.getLastAssistantText()).toBe("answered");
			const asked = historyLines(t)
				.filter((l) => l.kind === "question")
				.map((l) => l.question);
			expect(asked).toEqual(["Did the user want greet to keep the name argument?", "A question for the new prompt?"]);
		} finally {
			await t.dispose();
		}
	});

	it("is refused after the same review recorded a finding: the finding goes to the agent, not a question", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const t = await startSession({ cwd: repo, userSettings: CLARIFY });
		let refusal = "";
		let continuation = "";
		t.main.setResponses([
			write(1),
			fauxAssistantMessage("done"),
			(ctx) => ((continuation = allText(ctx as Ctx)), fauxAssistantMessage("fixing")),
		]);
		t.reviewer.setResponses([
			warn(),
			ask(),
			(ctx) => ((refusal = text((ctx as Ctx).messages.at(-1)?.content)), fauxAssistantMessage("done")),
		]);
		try {
			await t.session.prompt("Make greet shorter");
			await t.session.waitForIdle();
			expect(refusal).toMatch(/^Not asked: this review already recorded a finding/);
			expect(continuation).toContain("The new greet() drops the name argument");
			expect(continuation).not.toContain("Did the user want greet to keep the name argument?");
			expect(entryKinds(t)).not.toContain("custom_message:watchdog-question");
		} finally {
			await t.dispose();
		}
	});

	it("is never offered in cadence reviews", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model:high" },
				clarification: true,
				cadence: { everyNTools: 5 },
			}),
		});
		const views: ReviewerView[] = [];
		let called!: () => void;
		const cadenceCalled = new Promise<void>((r) => (called = r));
		const reads = Array.from({ length: 5 }, () => toolUse("read", { path: "a.txt" }));
		t.main.setResponses([...reads, async () => (await cadenceCalled, fauxAssistantMessage("read it five times"))]);
		t.reviewer.setResponses([(ctx) => (views.push(view(ctx)), called(), fauxAssistantMessage("clean"))]);
		try {
			await t.session.prompt("look at a.txt");
			await t.session.waitForIdle();
			expect(views).toHaveLength(1);
			expect(views[0].tools).toContain("watchdog_warn");
			expect(views[0].tools).not.toContain("watchdog_ask");
			expect(views[0].system).not.toMatch(/watchdog_ask/);
		} finally {
			await t.dispose();
		}
	});

	it("is not offered while a finding is in stalemate", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model:high" },
				clarification: true,
				lsp: { enabled: false },
				stalemateRepeats: 2,
			}),
		});
		const views: ReviewerView[] = [];
		t.main.setResponses([
			write(1),
			fauxAssistantMessage("done 1"),
			write(2),
			fauxAssistantMessage("done 2"),
			write(3),
			fauxAssistantMessage("done 3"),
		]);
		t.reviewer.setResponses([
			(ctx) => (views.push(view(ctx)), warn()),
			fauxAssistantMessage("r1"),
			(ctx) => (views.push(view(ctx)), warn()),
			fauxAssistantMessage("r2"),
			(ctx) => (views.push(view(ctx)), fauxAssistantMessage("clean")),
		]);
		try {
			await t.session.prompt("Make greet shorter but keep the name");
			await t.session.waitForIdle();
			expect(t.notices.map((n) => n.message).join("\n")).toMatch(/Watchdog stalemate/);
			// Something else (another extension, a background child's notice) starts a run in the same prompt.
			await t.session.sendCustomMessage(
				{ customType: "other-extension", content: "A background job finished.", display: true },
				{ triggerTurn: true },
			);
			await t.session.waitForIdle();
			expect(views).toHaveLength(3);
			expect(views[0].tools).toContain("watchdog_ask");
			expect(views[2].tools).not.toContain("watchdog_ask");
		} finally {
			await t.dispose();
		}
	});
});

describe("forgotten authorized work", () => {
	it("tells the reviewer about forgotten work, and routes the reminder by importance", async () => {
		const repo = makeGitRepo({ "README.md": "hi\n" });
		const t = await startSession({ cwd: repo, userSettings: CLARIFY });
		const views: ReviewerView[] = [];
		const contexts: string[] = [];
		const record = (reply: string) => (ctx: unknown) => (
			contexts.push(allText(ctx as Ctx)), fauxAssistantMessage(reply)
		);
		t.main.setResponses([
			toolUse("write", { path: "a.txt", content: "a\n" }),
			fauxAssistantMessage("Added a.txt."),
			record("Right, b.txt is still missing; adding it next."),
			toolUse("write", { path: "c.txt", content: "c\n" }),
			record("Added c.txt."),
			record("Anything else?"),
		]);
		const high = warn({
			summary: "b.txt was asked for and never created",
			evidence: "The user asked for a.txt and b.txt; the diff adds only a.txt",
			recommendedAction: "Create b.txt",
			importance: "high",
			severity: "concern",
			category: "missed-constraint",
		});
		const medium = warn({
			summary: "Second requested file d.txt is still missing",
			evidence: "Scope item 2 names d.txt; `find` shows no such file after this run wrote c.txt",
			recommendedAction: "Add d.txt too",
			importance: "medium",
			severity: "concern",
			category: "missed-constraint",
		});
		t.reviewer.setResponses([
			(ctx) => (views.push(view(ctx)), high),
			fauxAssistantMessage("r1"),
			(ctx) => (views.push(view(ctx)), medium),
			fauxAssistantMessage("r2"),
		]);
		try {
			await t.session.prompt("Add a.txt and b.txt");
			await t.session.waitForIdle();
			expect(views[0].system).toMatch(/Forgotten work and orchestration/);
			expect(views[0].system).toMatch(/dependency still pending/);
			expect(views[0].system).toMatch(/explicit hold/);
			expect(contexts[0]).toContain("b.txt was asked for and never created");

			await t.session.prompt("Add c.txt and d.txt");
			await t.session.waitForIdle();
			await t.session.prompt("and now?");
			const notes = t.session.sessionManager.getEntries().filter((e: any) => e.customType === "watchdog-note") as any[];
			expect(notes.map((n) => n.data.finding.summary)).toEqual(["Second requested file d.txt is still missing"]);
			// The medium reminder is the user's alone: no continuation, and not in any later request.
			expect(contexts).toHaveLength(3);
			for (const c of contexts.slice(1)) expect(c).not.toContain("d.txt is still missing");
		} finally {
			await t.dispose();
		}
	});
});

describe("clarification off", () => {
	it("offers no watchdog_ask and adds nothing to the reviewer's prompt or input", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model:high" },
				lsp: { enabled: false },
			}),
		});
		const views: ReviewerView[] = [];
		t.main.setResponses([write(1), fauxAssistantMessage("done")]);
		t.reviewer.setResponses([(ctx) => (views.push(view(ctx)), fauxAssistantMessage("clean"))]);
		try {
			await t.session.prompt("Make greet shorter");
			await t.session.waitForIdle();
			expect(views).toHaveLength(1);
			expect(views[0].tools).not.toContain("watchdog_ask");
			expect(views[0].system).not.toMatch(/watchdog_ask|Forgotten work/);
			expect(views[0].input).not.toContain("Orchestration activity");
		} finally {
			await t.dispose();
		}
	});
});
