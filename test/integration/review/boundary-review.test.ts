// The boundary review in a real Pi session: faux main and reviewer models, real git.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { allText, type Ctx, entryKinds, firstUser, ON, text, toolUse, warn } from "./review-helpers.ts";

describe("boundary review in a real session", () => {
	it("reviews a write run with the diff and the prompt, and a high finding continues the run", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		const seen: { input?: string; diff?: string; continuation?: string } = {};
		t.main.setResponses([
			toolUse("write", { path: "src/app.ts", content: "export const greet = (name: string) => 'hi';\n" }),
			fauxAssistantMessage("Done: greet updated."),
			(ctx) => {
				seen.continuation = allText(ctx as Ctx);
				return fauxAssistantMessage("You are right; I will keep the name.");
			},
		]);
		t.reviewer.setResponses([
			(ctx) => {
				seen.input = firstUser(ctx as Ctx);
				return toolUse("watchdog_diff", {});
			},
			(ctx) => {
				seen.diff = text((ctx as Ctx).messages.at(-1)?.content);
				return warn();
			},
			fauxAssistantMessage("Reported."),
		]);
		try {
			await t.session.prompt("Make greet shorter but keep greeting people by name");
			await t.session.waitForIdle();
			expect(seen.input).toContain("Make greet shorter but keep greeting people by name");
			expect(seen.input).toContain("src/app.ts");
			expect(seen.diff).toMatch(
				/-export const greet = \(name: string\) => `hi \$\{name\}`;\n\+export const greet = \(name: string\) => 'hi';/,
			);
			expect(seen.continuation).toContain("The new greet() drops the name argument");
			expect(seen.continuation).toContain("Use the name in the returned greeting");
			expect(t.main.state.callCount).toBe(3);
			expect(t.reviewer.state.callCount).toBe(3);
			expect(entryKinds(t)).toEqual(
				expect.arrayContaining(["custom_message:watchdog-finding", "custom:watchdog-review"]),
			);
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/last review: .*faux-reviewer\/reviewer-model \(thinking high\).*1 finding/);
			expect(status).toMatch(/changed paths: src\/app\.ts/);
			expect(status).toMatch(
				/1\. blocker \(sent to the agent\) \[reviewer\] The new greet\(\) drops the name argument/,
			);
		} finally {
			await t.dispose();
		}
	});
});

describe("what reaches the model", () => {
	it("keeps low and medium findings for the user only, out of every later request", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		const contexts: string[] = [];
		const record = (reply: string) => (ctx: unknown) => (
			contexts.push(allText(ctx as Ctx)), fauxAssistantMessage(reply)
		);
		t.main.setResponses([
			toolUse("write", { path: "a.txt", content: "b\n" }),
			record("Changed a.txt."),
			record("Second answer."),
			record("Third answer."),
		]);
		t.reviewer.setResponses([
			warn({
				summary: "Variable naming in a.txt is terse",
				evidence: "a.txt holds a single letter",
				recommendedAction: "Consider a clearer name",
				importance: "low",
				severity: "concern",
				category: "other",
			}),
			warn({
				summary: "No test covers the new content of a.txt",
				evidence: "no test file touched",
				recommendedAction: "Add a test",
				importance: "medium",
				severity: "concern",
				category: "test-gap",
			}),
			fauxAssistantMessage("done"),
		]);
		try {
			await t.session.prompt("change a.txt");
			await t.session.waitForIdle();
			await t.session.prompt("and now?");
			await t.session.prompt("anything else?");
			const notes = t.session.sessionManager
				.getEntries()
				.filter((e: any) => e.type === "custom" && e.customType === "watchdog-note") as any[];
			expect(notes.map((n) => n.data.finding.summary)).toEqual([
				"Variable naming in a.txt is terse",
				"No test covers the new content of a.txt",
			]);
			expect(notes[0].data.text).toMatch(/^Watchdog note \(for you only\)\nConcern: Variable naming/);
			expect(entryKinds(t)).not.toContain("custom_message:watchdog-finding");
			expect(contexts).toHaveLength(3);
			for (const c of contexts) {
				expect(c).not.toContain("terse");
				expect(c).not.toContain("No test covers");
			}
			expect(t.main.state.callCount).toBe(4); // no continuation
		} finally {
			await t.dispose();
		}
	});

	it("hides concerns below a blocker threshold", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model" },
				severityThreshold: "blocker",
			}),
		});
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("ok")]);
		t.reviewer.setResponses([warn({ severity: "concern" }), fauxAssistantMessage("done")]);
		try {
			await t.session.prompt("change a.txt");
			await t.session.waitForIdle();
			expect(entryKinds(t)).not.toContain("custom_message:watchdog-finding");
			expect(entryKinds(t)).not.toContain("custom:watchdog-note");
			expect(t.main.state.callCount).toBe(2);
		} finally {
			await t.dispose();
		}
	});
});

describe("when no review runs", () => {
	const cases: Array<[string, (repo: string) => Array<ReturnType<typeof toolUse>>]> = [
		["a run that only reads", () => [toolUse("read", { path: "a.txt" })]],
		[
			"a change that was reverted in the same run",
			() => [
				toolUse("write", { path: "a.txt", content: "changed\n" }),
				toolUse("write", { path: "a.txt", content: "a\n" }),
			],
		],
		[
			"a change under tmp/, node_modules/ or the artifact folder",
			() => [
				toolUse("write", { path: "tmp/log.txt", content: "x" }),
				toolUse("write", { path: "node_modules/x/i.js", content: "x" }),
				toolUse("write", { path: ".pi-subagents/run.json", content: "{}" }),
			],
		],
		["a bash command that changes nothing", () => [toolUse("bash", { command: "ls" })]],
	];
	for (const [name, steps] of cases) {
		it(`makes no reviewer call for ${name}`, async () => {
			const repo = makeGitRepo({ "a.txt": "a\n" });
			const t = await startSession({ cwd: repo, userSettings: ON });
			t.main.setResponses([...steps(repo), fauxAssistantMessage("done")]);
			t.reviewer.setResponses([warn()]);
			try {
				await t.session.prompt("do it");
				await t.session.waitForIdle();
				expect(t.reviewer.state.callCount).toBe(0);
				expect(entryKinds(t)).not.toContain("custom:watchdog-review");
			} finally {
				await t.dispose();
			}
		});
	}

	it("makes no call at all while the watchdog is off", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: wd({ enabled: false }) });
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done")]);
		try {
			await t.session.prompt("change it");
			expect(t.reviewer.state.callCount).toBe(0);
			expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("b\n");
		} finally {
			await t.dispose();
		}
	});
});

describe("stalemate and bounded continuations", () => {
	it("stops continuing after the same finding, reworded, three reviews in a row; the next prompt resets", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		const write = (n: number) =>
			toolUse("write", { path: "src/app.ts", content: `export const greet = (name: string) => 'hi ${n}';\n` });
		t.main.setResponses([
			write(1),
			fauxAssistantMessage("done 1"),
			write(2),
			fauxAssistantMessage("done 2"),
			write(3),
			fauxAssistantMessage("done 3"),
		]);
		t.reviewer.setResponses([
			warn(),
			fauxAssistantMessage("r1"),
			warn({
				summary: "greet() still ignores its name argument",
				evidence: "In src/app.ts the `name` parameter is never used by greet",
			}),
			fauxAssistantMessage("r2"),
			warn({
				summary: "The name argument of greet() is dropped again",
				evidence: "src/app.ts: greet returns a fixed string and ignores `name`",
				recommendedAction: "Return a greeting that includes name",
			}),
			fauxAssistantMessage("r3"),
		]);
		try {
			await t.session.prompt("Make greet shorter but keep the name");
			await t.session.waitForIdle();
			expect(t.main.state.callCount).toBe(6); // the prompt's run plus two continuations, then it stops
			const kinds = entryKinds(t);
			expect(kinds.filter((k) => k === "custom_message:watchdog-finding")).toHaveLength(2);
			const notes = t.session.sessionManager.getEntries().filter((e: any) => e.customType === "watchdog-note") as any[];
			expect(notes).toHaveLength(1);
			expect(notes[0].data.stalemate).toBe(true);
			expect(notes[0].data.text).toMatch(/^Watchdog stalemate/);
			expect(t.notices.map((n) => n.message).join("\n")).toMatch(/Watchdog stalemate: .* raised by 3 reviews in a row/);
			let status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/stalemate count: 3 \(stalemate/);

			// A new user prompt resets the count: the same finding continues the run again.
			t.main.setResponses([write(4), fauxAssistantMessage("done 4"), fauxAssistantMessage("ack")]);
			t.reviewer.setResponses([warn(), fauxAssistantMessage("r4")]);
			await t.session.prompt("Try once more");
			await t.session.waitForIdle();
			expect(entryKinds(t).filter((k) => k === "custom_message:watchdog-finding")).toHaveLength(3);
			status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/stalemate count: 1\n/);
		} finally {
			await t.dispose();
		}
	});

	it("never continues one prompt more than a fixed number of times, whatever the reviewer says", async () => {
		const repo = makeGitRepo({ "a.txt": "0\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, stalemateRepeats: 20 }),
		});
		const main = [];
		const rev = [];
		for (let i = 1; i <= 8; i++) {
			main.push(toolUse("write", { path: "a.txt", content: `${i}\n` }), fauxAssistantMessage(`done ${i}`));
			// Each review raises a different high finding, so no stalemate ever forms.
			rev.push(
				warn({
					summary: `Distinct problem number ${i} ${"xyzw".repeat(i)}`,
					evidence: `evidence ${i} ${"qrst".repeat(i)} in file${i}.md`,
					category: i % 2 ? "correctness" : "test-gap",
				}),
				fauxAssistantMessage("r"),
			);
		}
		t.main.setResponses(main);
		t.reviewer.setResponses(rev);
		try {
			await t.session.prompt("count up");
			await t.session.waitForIdle();
			expect(entryKinds(t).filter((k) => k === "custom_message:watchdog-finding")).toHaveLength(5);
			const held = t.session.sessionManager.getEntries().filter((e: any) => e.customType === "watchdog-note") as any[];
			expect(held).toHaveLength(1);
			expect(held[0].data.heldBack).toMatch(/already continued this prompt 5 times/);
			expect(t.main.state.callCount).toBe(12);
		} finally {
			await t.dispose();
		}
	});
});
