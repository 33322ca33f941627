// Cadence reviews in a real session: every N tool results a background review runs, and its
// high findings are steered in between tool calls, before the agent's next step.
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { expect, it } from "vitest";
import { textOf as text } from "../../support/openai-server.ts";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";

type Ctx = { messages: Array<{ role: string; content: unknown }> };
const read = (path: string) => fauxAssistantMessage([fauxToolCall("read", { path })], { stopReason: "toolUse" });

it("runs a review every N tool results and steers its high finding in before the next step", async () => {
	const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}.txt`, `file ${i}\n`]));
	const repo = makeGitRepo(files);
	const t = await startSession({
		cwd: repo,
		userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, cadence: { everyNTools: 5 } }),
	});
	let reviewed!: () => void;
	const reviewDone = new Promise<void>((r) => (reviewed = r));
	let reviewerInput = "";
	let afterSteer = "";
	t.reviewer.setResponses([
		(ctx) => {
			reviewerInput = text((ctx as Ctx).messages.find((m) => m.role === "user")?.content);
			setTimeout(reviewed, 50);
			return fauxAssistantMessage(
				[
					fauxToolCall("watchdog_warn", {
						summary: "The agent reads every file one by one instead of the two the user named",
						evidence: "calls 0-4 read f0.txt … f4.txt; the user asked about f6.txt and f7.txt only",
						recommendedAction: "Read f6.txt and f7.txt and answer",
						importance: "high",
						severity: "concern",
						category: "scope-drift",
					}),
				],
				{ stopReason: "toolUse" },
			);
		},
		fauxAssistantMessage("reported"),
	]);
	t.main.setResponses([
		read("f0.txt"),
		read("f1.txt"),
		read("f2.txt"),
		read("f3.txt"),
		read("f4.txt"),
		async () => (await reviewDone, read("f5.txt")), // the review finishes while this step runs
		(ctx) => ((afterSteer = (ctx as Ctx).messages.map((m) => text(m.content)).join("\n")), read("f6.txt")),
		fauxAssistantMessage("f6 and f7 say hello."),
	]);
	try {
		await t.session.prompt("What do f6.txt and f7.txt say?");
		await t.session.waitForIdle();
		expect(reviewerInput).toContain("What do f6.txt and f7.txt say?");
		expect(reviewerInput).toContain("[Tool call] read");
		expect(afterSteer).toContain("The agent reads every file one by one");
		const entries = t.session.sessionManager.getEntries() as any[];
		const steered = entries.findIndex((e) => e.type === "custom_message" && e.customType === "watchdog-finding");
		const lastAssistant = entries.map((e) => e.message?.role).lastIndexOf("assistant");
		expect(steered).toBeGreaterThan(0);
		expect(steered).toBeLessThan(lastAssistant);
		expect(entries.filter((e) => e.customType === "watchdog-review").map((e) => e.data.trigger)).toEqual(["cadence"]);
		expect(t.reviewer.state.callCount).toBe(2); // one cadence review; no boundary review for a run that only read
	} finally {
		await t.dispose();
	}
});

it("stays off below five and by default", async () => {
	const repo = makeGitRepo({ "a.txt": "a\n" });
	const t = await startSession({
		cwd: repo,
		userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" } }),
	});
	t.main.setResponses([...Array.from({ length: 12 }, () => read("a.txt")), fauxAssistantMessage("done")]);
	try {
		await t.session.prompt("read a lot");
		await t.session.waitForIdle();
		expect(t.reviewer.state.callCount).toBe(0);
	} finally {
		await t.dispose();
	}
});
