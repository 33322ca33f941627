// The `--watchdog-report` document from a real in-process Pi session (faux models): the
// reviews with outcome, model, cost and duration; each finding with its fate; the blockers
// left open; the changes a failed review left unreviewed; the exit decision.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { tempDir } from "../../support/temp.ts";
import { ON, toolUse, warn } from "../review/review-helpers.ts";

const write = (path: string, content: string) => toolUse("write", { path, content });

describe("the run report", () => {
	it("lists the review, its finding and fate, and the blocker the agent left open", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const report = join(tempDir(), "watchdog.json");
		const t = await startSession({ cwd: repo, userSettings: ON, flags: { "watchdog-report": report } });
		t.main.setResponses([
			write("src/app.ts", "export const greet = (_name: string) => 'hi';\n"),
			fauxAssistantMessage("Simplified greet."),
			fauxAssistantMessage("Noted."),
		]);
		t.reviewer.setResponses([warn(), fauxAssistantMessage("Reported."), fauxAssistantMessage("clean")]);
		try {
			await t.session.prompt("Simplify greet, keep the name in the greeting");
			await t.session.waitForIdle();
		} finally {
			await t.dispose();
		}
		const doc = JSON.parse(readFileSync(report, "utf8"));
		expect(doc).toMatchObject({ schema: 1, generator: "pi-watchdog", enabled: true, strict: false });
		expect(doc.exit).toEqual({ code: 0, reason: "not strict" });
		expect(doc.session.mode).toBe("rpc");
		expect(doc.reviews).toHaveLength(1);
		expect(doc.reviews[0]).toMatchObject({
			trigger: "boundary",
			outcome: "findings",
			model: "faux-reviewer/reviewer-model",
			thinking: "high",
			paths: 1,
		});
		expect(typeof doc.reviews[0].cost).toBe("number");
		expect(typeof doc.reviews[0].durationMs).toBe("number");
		expect(doc.totals.reviews).toBe(1);
		expect(doc.findings).toEqual([
			expect.objectContaining({
				source: "main",
				importance: "high",
				severity: "blocker",
				fate: "sent to the agent",
				summary: "The new greet() drops the name argument",
			}),
		]);
		expect(doc.blockers).toEqual([
			expect.objectContaining({ kind: "finding", summary: "The new greet() drops the name argument" }),
		]);
		expect(doc.pending).toEqual([]);
		expect(doc.children).toEqual([]);
	});

	it("names the changes a failed review left unreviewed, and the failure, as blockers", async () => {
		const repo = makeGitRepo({ "notes.md": "# notes\n" });
		const report = join(tempDir(), "watchdog.json");
		const t = await startSession({ cwd: repo, userSettings: ON, flags: { "watchdog-report": report } });
		t.main.setResponses([write("notes.md", "# Notes\n"), fauxAssistantMessage("Renamed.")]);
		t.reviewer.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "upstream 500" })]);
		try {
			await t.session.prompt("Capitalise the heading");
			await t.session.waitForIdle();
		} finally {
			await t.dispose();
		}
		const doc = JSON.parse(readFileSync(report, "utf8"));
		expect(doc.reviews).toEqual([expect.objectContaining({ outcome: "failed" })]);
		expect(doc.pending).toEqual([{ path: "notes.md", reason: expect.stringContaining("failed") }]);
		expect(doc.blockers.map((b: { kind: string }) => b.kind)).toEqual(["review", "pending"]);
		expect(doc.blockers[1].summary).toMatch(/^1 changed path\(s\) never reviewed: /);
	});
});
