// Every finding, whatever its source, leaves one history line saying what became of it, and
// every review one line of its own, in <agentDir>/watchdog/history.jsonl.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { ON, toolUse, warn } from "../review/review-helpers.ts";

it("writes a history line for the review and for each finding with its fate", async () => {
	const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
	const t = await startSession({ cwd: repo, userSettings: ON });
	t.main.setResponses([
		toolUse("write", { path: "src/app.ts", content: "export const greet = (_name: string) => 'hi';\n" }),
		fauxAssistantMessage("done"),
		fauxAssistantMessage("fixed"),
	]);
	t.reviewer.setResponses([
		warn(),
		warn({
			summary: "The greeting lost its comma",
			evidence: "src/app.ts line 1",
			importance: "low",
			severity: "concern",
			category: "other",
		}),
		fauxAssistantMessage("done reviewing"),
	]);
	try {
		await t.session.prompt("make greet shorter");
		await t.session.waitForIdle();
		const lines = readFileSync(join(t.agentDir, "watchdog", "history.jsonl"), "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l));
		const session = t.session.sessionManager.getSessionId();
		expect(lines.every((l) => l.session === session && l.cwd === repo && typeof l.at === "string")).toBe(true);
		expect(lines.filter((l) => l.kind === "finding").map((l) => [l.source, l.importance, l.fate])).toEqual([
			["main", "high", "sent to the agent"],
			["main", "low", "shown to you"],
		]);
		expect(lines.find((l) => l.kind === "review")).toMatchObject({
			trigger: "boundary",
			outcome: "findings",
			paths: 1,
			model: "faux-reviewer/reviewer-model",
		});
		// Summaries and excerpts only: nothing of the run itself.
		expect(JSON.stringify(lines)).not.toContain("make greet shorter");
	} finally {
		await t.dispose();
	}
});
