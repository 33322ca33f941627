// Since Pi 1.2 `before_agent_start` fires for runs that `sendMessage(…, { triggerTurn: true })`
// starts, as the watchdog's own deliveries to an idle agent do. Such a run is the watchdog's,
// never a user prompt: it adds nothing to the scope, spends the same prompt's budget, and the
// reviewer reads its message as the watchdog's, not the user's.
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession, type TestSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { historyLines } from "../review/clarify-helpers.ts";
import { allText, type Ctx, toolUse, warn } from "../review/review-helpers.ts";

const PROMPT = "Rename the heading of notes.md";
const F1 = "The heading lost its capital";
const F2 = "The heading is now misspelt";

/**
 * The user's run fails its review (its change stays pending); `review` delivers F1 to the idle
 * agent, which starts a run of the watchdog's; that run edits again and its boundary review raises F2.
 */
async function watchdogRun(settings: Record<string, unknown> = {}) {
	const starts: string[] = [];
	const probe: ExtensionFactory = (pi) => {
		pi.on("before_agent_start", (event) => {
			starts.push(event.messageType);
		});
	};
	const t = await startSession({
		cwd: makeGitRepo({ "notes.md": "# notes\n" }),
		userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, ...settings }),
		moreExtensions: [probe],
	});
	const reviewerSaw: string[] = [];
	const seeing = (reply: ReturnType<typeof warn>) => (ctx: Ctx) => (reviewerSaw.push(allText(ctx)), reply);
	t.main.setResponses([
		toolUse("write", { path: "notes.md", content: "# notes renamed\n" }),
		fauxAssistantMessage("Renamed."),
		toolUse("write", { path: "notes.md", content: "# Notse\n" }),
		fauxAssistantMessage("Fixed the capital."),
	]);
	t.reviewer.setResponses([
		fauxAssistantMessage("", { stopReason: "error", errorMessage: "upstream 500" }),
		seeing(warn({ summary: F1, evidence: "notes.md line 1 reads '# notes renamed'" })),
		fauxAssistantMessage("Reported."),
		seeing(warn({ summary: F2, evidence: "notes.md line 1 reads '# Notse'" })),
		fauxAssistantMessage("Reported."),
	]);
	await t.session.prompt(PROMPT);
	await t.session.waitForIdle();
	await t.command("/subagents-watchdog review");
	await t.session.waitForIdle();
	return { t, starts, reviewerSaw };
}

const fates = (t: TestSession) =>
	historyLines(t)
		.filter((l) => l.kind === "finding")
		.map((l) => [l.summary, l.fate]);

describe("runs the watchdog starts are not user prompts", () => {
	it("adds nothing to the scope the reviewer reads, and the reviewer sees its message as the watchdog's", async () => {
		const { t, starts, reviewerSaw } = await watchdogRun();
		try {
			// The watchdog's run went through before_agent_start as a custom-message run.
			expect(starts).toEqual(["user", "custom"]);
			expect(reviewerSaw).toHaveLength(2);
			const later = reviewerSaw[1];
			const scope = /## What the user asked, oldest first\n([\s\S]*?)\n## /.exec(later)?.[1] ?? "";
			expect(scope).toContain(`1. ${PROMPT}`);
			expect(scope).not.toContain("2. ");
			expect(scope).not.toContain(F1);
			expect(later).toMatch(/\[Watchdog finding delivered to the agent\]\n[\s\S]*The heading lost its capital/);
			expect(later).not.toMatch(/\[User\]\n[\s\S]*The heading lost its capital/);
		} finally {
			await t.dispose();
		}
	});

	it("spends the user's prompt's budget: past maxWarnings the next finding stays with the user", async () => {
		const { t } = await watchdogRun({ maxWarnings: 1 });
		try {
			expect(fates(t)).toEqual([
				[F1, "sent to the agent"],
				[F2, "held back"],
			]);
		} finally {
			await t.dispose();
		}
	});

	it("keeps the same prompt's stalemate count across the watchdog's run", async () => {
		const t = await startSession({
			cwd: makeGitRepo({ "notes.md": "# notes\n" }),
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, stalemateRepeats: 2 }),
		});
		const write = (content: string) => toolUse("write", { path: "notes.md", content });
		t.main.setResponses([
			write("# notes 1\n"),
			fauxAssistantMessage("Renamed."),
			write("# notes 2\n"), // the continuation F1 started
			fauxAssistantMessage("Adjusted."),
			write("# notes 3\n"), // the run the watchdog's F2 started
			fauxAssistantMessage("Fixed."),
		]);
		t.reviewer.setResponses([
			warn({ summary: F1 }),
			fauxAssistantMessage("Reported."),
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "upstream 500" }),
			warn({ summary: F2, evidence: "another problem" }),
			fauxAssistantMessage("Reported."),
			warn({ summary: F1 }),
			fauxAssistantMessage("Reported."),
		]);
		try {
			await t.session.prompt(PROMPT);
			await t.session.waitForIdle();
			await t.command("/subagents-watchdog review");
			await t.session.waitForIdle();
			// F1 from the first boundary review, then again from the third (the second failed): two in a
			// row within one user prompt. Had the watchdog's run counted as a prompt, the count would have
			// started over and F1 would only be a duplicate.
			expect(fates(t)).toEqual([
				[F1, "sent to the agent"],
				[F2, "sent to the agent"],
				[F1, "stalemate"],
			]);
		} finally {
			await t.dispose();
		}
	});
});
