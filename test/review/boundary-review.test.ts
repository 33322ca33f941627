// The boundary review in a real Pi session: faux main and reviewer models, real git.
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { makeGitRepo, writeFiles } from "../support/git.ts";
import { startSession, type TestSession } from "../support/pi-session.ts";
import { wd } from "../support/settings-files.ts";

const ON = wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model:high" } });
const toolUse = (name: string, args: Record<string, unknown>) => fauxAssistantMessage([fauxToolCall(name, args as Parameters<typeof fauxToolCall>[1])], { stopReason: "toolUse" });
const warn = (over: Record<string, unknown> = {}) =>
	toolUse("watchdog_warn", {
		summary: "The new greet() drops the name argument",
		evidence: "src/app.ts line 1: greet ignores `name` and returns a constant",
		recommendedAction: "Use the name in the returned greeting",
		importance: "high",
		severity: "blocker",
		category: "correctness",
		...over,
	});
type Ctx = { messages: Array<{ role: string; content: unknown }> };
const text = (c: unknown): string => (typeof c === "string" ? c : Array.isArray(c) ? c.map((x) => x?.text ?? "").join("") : "");
const firstUser = (ctx: Ctx) => text(ctx.messages.find((m) => m.role === "user")?.content);
const allText = (ctx: Ctx) => ctx.messages.map((m) => text(m.content)).join("\n");
const entryKinds = (t: TestSession) => t.session.sessionManager.getEntries().map((e: any) => (e.customType ? `${e.type}:${e.customType}` : e.type));

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
			expect(seen.diff).toMatch(/-export const greet = \(name: string\) => `hi \$\{name\}`;\n\+export const greet = \(name: string\) => 'hi';/);
			expect(seen.continuation).toContain("The new greet() drops the name argument");
			expect(seen.continuation).toContain("Use the name in the returned greeting");
			expect(t.main.state.callCount).toBe(3);
			expect(t.reviewer.state.callCount).toBe(3);
			expect(entryKinds(t)).toEqual(expect.arrayContaining(["custom_message:watchdog-finding", "custom:watchdog-review"]));
			const status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(status).toMatch(/last review: .*faux-reviewer\/reviewer-model \(thinking high\).*1 finding/);
			expect(status).toMatch(/changed paths: src\/app\.ts/);
			expect(status).toMatch(/high\/blocker\/correctness \[main\] The new greet\(\) drops the name argument/);
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
		const record = (reply: string) => (ctx: unknown) => (contexts.push(allText(ctx as Ctx)), fauxAssistantMessage(reply));
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), record("Changed a.txt."), record("Second answer."), record("Third answer.")]);
		t.reviewer.setResponses([
			warn({ summary: "Variable naming in a.txt is terse", evidence: "a.txt holds a single letter", recommendedAction: "Consider a clearer name", importance: "low", severity: "concern", category: "other" }),
			warn({ summary: "No test covers the new content of a.txt", evidence: "no test file touched", recommendedAction: "Add a test", importance: "medium", severity: "concern", category: "test-gap" }),
			fauxAssistantMessage("done"),
		]);
		try {
			await t.session.prompt("change a.txt");
			await t.session.waitForIdle();
			await t.session.prompt("and now?");
			await t.session.prompt("anything else?");
			const notes = t.session.sessionManager.getEntries().filter((e: any) => e.type === "custom" && e.customType === "watchdog-note") as any[];
			expect(notes.map((n) => n.data.finding.summary)).toEqual(["Variable naming in a.txt is terse", "No test covers the new content of a.txt"]);
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
		const t = await startSession({ cwd: repo, userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, severityThreshold: "blocker" }) });
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
		["a change that was reverted in the same run", () => [toolUse("write", { path: "a.txt", content: "changed\n" }), toolUse("write", { path: "a.txt", content: "a\n" })]],
		["a change under tmp/, node_modules/ or the artifact folder", () => [toolUse("write", { path: "tmp/log.txt", content: "x" }), toolUse("write", { path: "node_modules/x/i.js", content: "x" }), toolUse("write", { path: ".pi-subagents/run.json", content: "{}" })]],
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
		const write = (n: number) => toolUse("write", { path: "src/app.ts", content: `export const greet = (name: string) => 'hi ${n}';\n` });
		t.main.setResponses([write(1), fauxAssistantMessage("done 1"), write(2), fauxAssistantMessage("done 2"), write(3), fauxAssistantMessage("done 3")]);
		t.reviewer.setResponses([
			warn(),
			fauxAssistantMessage("r1"),
			warn({ summary: "greet() still ignores its name argument", evidence: "In src/app.ts the `name` parameter is never used by greet" }),
			fauxAssistantMessage("r2"),
			warn({ summary: "The name argument of greet() is dropped again", evidence: "src/app.ts: greet returns a fixed string and ignores `name`", recommendedAction: "Return a greeting that includes name" }),
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
			let status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(status).toMatch(/stalemate count: 3 \(stalemate/);

			// A new user prompt resets the count: the same finding continues the run again.
			t.main.setResponses([write(4), fauxAssistantMessage("done 4"), fauxAssistantMessage("ack")]);
			t.reviewer.setResponses([warn(), fauxAssistantMessage("r4")]);
			await t.session.prompt("Try once more");
			await t.session.waitForIdle();
			expect(entryKinds(t).filter((k) => k === "custom_message:watchdog-finding")).toHaveLength(3);
			status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(status).toMatch(/stalemate count: 1\n/);
		} finally {
			await t.dispose();
		}
	});

	it("never continues one prompt more than a fixed number of times, whatever the reviewer says", async () => {
		const repo = makeGitRepo({ "a.txt": "0\n" });
		const t = await startSession({ cwd: repo, userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, stalemateRepeats: 20 }) });
		const main = [];
		const rev = [];
		for (let i = 1; i <= 8; i++) {
			main.push(toolUse("write", { path: "a.txt", content: `${i}\n` }), fauxAssistantMessage(`done ${i}`));
			// Each review raises a different high finding, so no stalemate ever forms.
			rev.push(warn({ summary: `Distinct problem number ${i} ${"xyzw".repeat(i)}`, evidence: `evidence ${i} ${"qrst".repeat(i)} in file${i}.md`, category: i % 2 ? "correctness" : "test-gap" }), fauxAssistantMessage("r"));
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

describe("failures are visible and never switch models", () => {
	it("cancels a running review when the user sends new input", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		let reviewing!: () => void;
		const started = new Promise<void>((r) => (reviewing = r));
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done"), fauxAssistantMessage("follow-up handled")]);
		t.reviewer.setResponses([
			async (_ctx, options) => {
				reviewing();
				await new Promise<void>((resolve) => {
					if (options?.signal?.aborted) return resolve();
					options?.signal?.addEventListener("abort", () => resolve());
					setTimeout(resolve, 20_000);
				});
				return warn();
			},
		]);
		try {
			const first = t.session.prompt("change a.txt");
			await started;
			await t.session.prompt("actually, also update the docs", { streamingBehavior: "followUp" });
			await first;
			await t.session.waitForIdle();
			expect(t.notices.map((n) => n.message)).toContain("Watchdog: review cancelled by new input.");
			expect(entryKinds(t)).not.toContain("custom_message:watchdog-finding");
			expect(entryKinds(t)).not.toContain("custom:watchdog-review");
		} finally {
			await t.dispose();
		}
	});

	it("cancels a running review when the session's model changes", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		let reviewing!: () => void;
		const started = new Promise<void>((r) => (reviewing = r));
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done")]);
		t.reviewer.setResponses([
			async (_ctx, options) => {
				reviewing();
				await new Promise<void>((resolve) => {
					options?.signal?.addEventListener("abort", () => resolve());
					setTimeout(resolve, 20_000);
				});
				return warn();
			},
		]);
		try {
			const run = t.session.prompt("change a.txt");
			await started;
			await t.session.setModel(t.reviewer.getModel());
			await run;
			expect(t.notices.map((n) => n.message)).toContain("Watchdog: review cancelled by a model change.");
			expect(entryKinds(t)).not.toContain("custom_message:watchdog-finding");
		} finally {
			await t.dispose();
		}
	});

	it("reports a review that runs past agentEndTimeoutMs", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, agentEndTimeoutMs: 1000 }) });
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done")]);
		t.reviewer.setResponses([
			async (_ctx, options) => {
				await new Promise<void>((resolve) => {
					options?.signal?.addEventListener("abort", () => resolve());
					setTimeout(resolve, 20_000);
				});
				return fauxAssistantMessage("too late");
			},
		]);
		try {
			const started = Date.now();
			await t.session.prompt("change a.txt");
			await t.session.waitForIdle();
			expect(Date.now() - started).toBeLessThan(10_000);
			const warning = t.notices.find((n) => n.level === "warning")?.message ?? "";
			expect(warning).toMatch(/the review failed \(timeout\): the review did not finish within 1000 ms/);
			expect(warning).toMatch(/does not switch models/);
			const status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(status).toMatch(/last review: .*failed \(timeout/);
			expect(status).toMatch(/last problem: review failed \(timeout\)/);
		} finally {
			await t.dispose();
		}
	});

	it("reports an unknown reviewer model once, and leaves the runs alone", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: wd({ enabled: true, main: { model: "nosuch/model" } }) });
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done"), toolUse("write", { path: "a.txt", content: "c\n" }), fauxAssistantMessage("done again")]);
		try {
			await t.session.prompt("change a.txt");
			await t.session.prompt("change it again");
			await t.session.waitForIdle();
			const warnings = t.notices.filter((n) => n.level === "warning");
			expect(warnings).toHaveLength(1); // the same failure is not announced after every run
			expect(warnings[0].message).toMatch(/the review failed \(unknown-model\): Unknown model nosuch\/model/);
			expect(t.main.state.callCount).toBe(4);
			expect(t.reviewer.state.callCount).toBe(0);
			const status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(status).toMatch(/reviews this session: 2/);
		} finally {
			await t.dispose();
		}
	});

	it("reports a provider error from the reviewer", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done")]);
		t.reviewer.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "429 Too Many Requests: rate limit reached" })]);
		try {
			await t.session.prompt("change a.txt");
			await t.session.waitForIdle();
			expect(t.notices.find((n) => n.level === "warning")?.message).toMatch(/the review failed \(rate-limit\): 429 Too Many Requests/);
		} finally {
			await t.dispose();
		}
	});

	it("answers malformed watchdog_warn arguments with an error the reviewer can fix, and tells the user", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		let toolError = "";
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done"), fauxAssistantMessage("ack")]);
		t.reviewer.setResponses([
			toolUse("watchdog_warn", { summary: "x", importance: "urgent" }),
			(ctx) => {
				toolError = text((ctx as Ctx).messages.at(-1)?.content);
				return warn();
			},
			fauxAssistantMessage("done"),
		]);
		try {
			await t.session.prompt("change a.txt");
			await t.session.waitForIdle();
			expect(toolError).toMatch(/Not recorded: .*evidence.*importance must be low, medium or high/);
			expect(t.notices.find((n) => n.level === "warning")?.message).toMatch(/malformed findings/);
			expect(entryKinds(t)).toContain("custom_message:watchdog-finding");
		} finally {
			await t.dispose();
		}
	});
});

describe("outside git", () => {
	it("reviews a run with a successful write, named from the tool evidence", async () => {
		const t = await startSession({ userSettings: ON });
		let input = "";
		t.main.setResponses([toolUse("write", { path: "notes.md", content: "x\n" }), fauxAssistantMessage("wrote notes")]);
		t.reviewer.setResponses([
			(ctx) => {
				input = firstUser(ctx as Ctx);
				return fauxAssistantMessage("clean");
			},
		]);
		try {
			await t.session.prompt("write notes");
			await t.session.waitForIdle();
			expect(input).toMatch(/## Changed paths \(1\)\nnotes\.md\n\(Not a git repository/);
			expect(entryKinds(t)).toContain("custom:watchdog-review");
		} finally {
			await t.dispose();
		}
	});
});

describe("scope", () => {
	it("survives compaction and resuming the session, and never includes our own messages", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const sessionDir = join(repo, "..", `${repo.split("/").pop()}-sessions`);
		// Keep almost nothing on compaction, so the first prompt is compacted away.
		const compactEarly = { ...ON, compaction: { enabled: false, keepRecentTokens: 1 } };
		const first = await startSession({ cwd: repo, userSettings: compactEarly, sessionManager: SessionManager.create(repo, sessionDir) });
		first.main.setResponses([fauxAssistantMessage("Noted."), fauxAssistantMessage("Understood."), fauxAssistantMessage("Summary of the work so far."), fauxAssistantMessage("Summary of the turn prefix.")]);
		let file: string | undefined;
		try {
			await first.session.prompt("Requirement one: keep a.txt lowercase");
			await first.session.prompt("Also note the file is small");
			await first.session.compact();
			expect(first.session.sessionManager.getEntries().some((e: any) => e.type === "compaction")).toBe(true);
			file = first.session.sessionManager.getSessionFile();
		} finally {
			await first.dispose();
		}
		expect(file).toBeDefined();
		const resumed = await startSession({ cwd: repo, agentDir: first.agentDir, userSettings: ON, sessionManager: SessionManager.open(file as string, sessionDir) });
		let input = "";
		resumed.main.setResponses([toolUse("write", { path: "a.txt", content: "B\n" }), fauxAssistantMessage("done")]);
		resumed.reviewer.setResponses([(ctx) => ((input = firstUser(ctx as Ctx)), fauxAssistantMessage("clean"))]);
		try {
			await resumed.session.prompt("Requirement two: make a.txt say b");
			await resumed.session.waitForIdle();
			expect(input).toMatch(/## What the user asked, oldest first\n1\. Requirement one: keep a\.txt lowercase\n2\. Also note the file is small\n3\. Requirement two: make a\.txt say b\n/);
			expect(input).not.toMatch(/You are the watchdog/);
		} finally {
			await resumed.dispose();
		}
	});
});

describe("WATCHDOG.md", () => {
	it("gives the reviewer the project's then the user's standing instructions, read fresh, unless turned off", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		writeFiles(repo, { ".pi/WATCHDOG.md": "Project rule: never touch migrations.\n" });
		writeFileSync(join(t.agentDir, "WATCHDOG.md"), "User rule: prefer small diffs.\n");
		const inputs: string[] = [];
		const capture = (ctx: unknown) => (inputs.push(firstUser(ctx as Ctx)), fauxAssistantMessage("clean"));
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done"), toolUse("write", { path: "a.txt", content: "c\n" }), fauxAssistantMessage("done")]);
		t.reviewer.setResponses([capture, capture]);
		try {
			await t.session.prompt("change a.txt");
			expect(inputs[0]).toMatch(/## Standing instructions \(WATCHDOG\.md\)\n\(project: .*\)\nProject rule: never touch migrations\.\n\n\(user: .*\)\nUser rule: prefer small diffs\./);
			await writeFileAndDisable(t);
			await t.session.prompt("change it again");
			expect(inputs[1]).not.toContain("WATCHDOG.md");
		} finally {
			await t.dispose();
		}
	});
});

/** The user turns WATCHDOG.md off in their settings file while the session runs. */
async function writeFileAndDisable(t: TestSession): Promise<void> {
	const path = join(t.agentDir, "settings.json");
	const settings = JSON.parse(readFileSync(path, "utf8"));
	settings.subagents.watchdog.guidance = { watchdogMd: false };
	writeFileSync(path, JSON.stringify(settings));
	utimesSync(path, new Date(), new Date(Date.now() + 10_000));
}

describe("after a restart", () => {
	it("status still shows the last review and its findings", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const sessionDir = join(repo, "..", `${repo.split("/").pop()}-sessions`);
		const first = await startSession({ cwd: repo, userSettings: ON, sessionManager: SessionManager.create(repo, sessionDir) });
		first.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done")]);
		first.reviewer.setResponses([warn({ importance: "medium", severity: "concern", summary: "a.txt lost its only line", evidence: "a.txt now reads b" }), fauxAssistantMessage("ok")]);
		let file: string | undefined;
		try {
			await first.session.prompt("change a.txt");
			await first.session.waitForIdle();
			file = first.session.sessionManager.getSessionFile();
		} finally {
			await first.dispose();
		}
		const again = await startSession({ cwd: repo, agentDir: first.agentDir, userSettings: ON, sessionManager: SessionManager.open(file as string, sessionDir) });
		try {
			const status = (await again.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(status).toMatch(/last review: .*faux-reviewer\/reviewer-model .*1 finding/);
			expect(status).toMatch(/changed paths: a\.txt/);
			expect(status).toMatch(/medium\/concern\/correctness \[main\] a\.txt lost its only line/);
			expect(status).toMatch(/reviews this session: 1/);
		} finally {
			await again.dispose();
		}
	});
});
