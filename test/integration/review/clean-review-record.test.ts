// A review's record is kept in the session as soon as the run has settled, clean or not:
// status and a resumed session read reviews from these entries. A UI call that fails after
// the review (the footer's status word) must not cost the boundary its result: the settle-cost
// bench's UI had no setStatus, and every review record and finding of its runs was dropped.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { entryKinds, ON, toolUse, warn } from "./review-helpers.ts";

describe("a clean boundary review", () => {
	it("is in the session's entries once waitForIdle resolves, in every run", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		try {
			for (let round = 1; round <= 3; round++) {
				t.main.setResponses([
					toolUse("write", { path: "a.txt", content: `round ${round}\n` }),
					fauxAssistantMessage(`Wrote round ${round}.`),
				]);
				t.reviewer.setResponses([
					fauxAssistantMessage("No findings: a.txt holds the new round and nothing else changed."),
				]);
				await t.session.prompt(`Write round ${round} into a.txt`);
				await t.session.waitForIdle();
				const reviews = entryKinds(t).filter((k) => k === "custom:watchdog-review");
				expect(reviews).toHaveLength(round);
				const last = t.session.sessionManager
					.getEntries()
					.filter((e: any) => e.customType === "watchdog-review")
					.at(-1) as any;
				expect(last.data).toMatchObject({ status: "clean", trigger: "boundary" });
			}
			const history = readFileSync(join(t.agentDir, "watchdog", "history.jsonl"), "utf8")
				.trim()
				.split("\n")
				.map((l) => JSON.parse(l));
			expect(history.filter((h: any) => h.kind === "review" && h.outcome === "clean")).toHaveLength(3);
		} finally {
			await t.dispose();
		}
	});

	it("is kept, and a finding still continues the run, when the UI's status line throws", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: ON,
			ui: {
				setStatus: () => {
					throw new Error("the status line is gone");
				},
			},
		});
		try {
			t.main.setResponses([
				toolUse("write", { path: "a.txt", content: "one\n" }),
				fauxAssistantMessage("Wrote a.txt."),
			]);
			t.reviewer.setResponses([fauxAssistantMessage("No findings.")]);
			await t.session.prompt("Write a.txt");
			await t.session.waitForIdle();
			expect(entryKinds(t).filter((k) => k === "custom:watchdog-review")).toHaveLength(1);

			t.main.setResponses([
				toolUse("write", { path: "src/app.ts", content: "export const greet = (name: string) => 'hi';\n" }),
				fauxAssistantMessage("Done."),
				fauxAssistantMessage("I will use the name."),
			]);
			t.reviewer.setResponses([warn(), fauxAssistantMessage("Reported.")]);
			await t.session.prompt("Make greet shorter");
			await t.session.waitForIdle();
			expect(entryKinds(t)).toEqual(expect.arrayContaining(["custom_message:watchdog-finding"]));
			expect(entryKinds(t).filter((k) => k === "custom:watchdog-review")).toHaveLength(2);
			expect(t.main.state.callCount).toBe(5); // the finding started one more turn
			expect(t.notices.filter((n) => /failed/.test(n.message))).toEqual([]);
		} finally {
			await t.dispose();
		}
	});
});
