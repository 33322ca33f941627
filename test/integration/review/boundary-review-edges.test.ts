// The boundary review when things go wrong or persist: failures, stalemate, scope across
// compaction and restarts, WATCHDOG.md. Faux models, real git, a real Pi session.
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession, type TestSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { type Ctx, entryKinds, firstUser, ON, text, toolUse, warn } from "./review-helpers.ts";

describe("failures are visible and never switch models", () => {
	it("cancels a running review when the user sends new input, and reviews its changes with the next run", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		let reviewing!: () => void;
		const started = new Promise<void>((r) => (reviewing = r));
		let next = "";
		t.main.setResponses([
			toolUse("write", { path: "a.txt", content: "b\n" }),
			fauxAssistantMessage("done"),
			toolUse("write", { path: "docs.md", content: "docs\n" }),
			fauxAssistantMessage("follow-up handled"),
		]);
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
			(ctx) => ((next = firstUser(ctx as Ctx)), fauxAssistantMessage("clean")),
		]);
		try {
			const first = t.session.prompt("change a.txt");
			await started;
			await t.session.prompt("actually, also update the docs", { streamingBehavior: "followUp" });
			await first;
			await t.session.waitForIdle();
			expect(t.notices.map((n) => n.message)).toContain(
				"Watchdog: review cancelled by new input; its 1 changed path(s) stay pending for the next review.",
			);
			expect(entryKinds(t)).not.toContain("custom_message:watchdog-finding");
			// The next run's review covers a.txt too, and says it was carried over.
			expect(next).toMatch(
				/## Changed paths \(2\)\n<<<DATA \w+: changed paths>>>\na\.txt\ndocs\.md\n<<<END DATA \w+>>>/,
			);
			expect(next).toMatch(
				/1 of them changed in an earlier run whose review was cancelled or failed[^\n]*\n<<<DATA \w+: carried-over paths>>>\na\.txt\n/,
			);
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/Pending: nothing: every change so far was reviewed/);
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
			expect(t.notices.map((n) => n.message)).toContain(
				"Watchdog: review cancelled by a model change; its 1 changed path(s) stay pending for the next review.",
			);
			expect(entryKinds(t)).not.toContain("custom_message:watchdog-finding");
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/Pending: 1 path\(s\), review cancelled by a model change: a\.txt/);
		} finally {
			await t.dispose();
		}
	});

	it("reports a review that runs past agentEndTimeoutMs", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, agentEndTimeoutMs: 1000 }),
		});
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
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/last review: .*failed \(timeout/);
			expect(status).toMatch(/last problem: review failed \(timeout\)/);
		} finally {
			await t.dispose();
		}
	});

	it("reports an unknown reviewer model once, and leaves the runs alone", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: wd({ enabled: true, main: { model: "nosuch/model" } }) });
		t.main.setResponses([
			toolUse("write", { path: "a.txt", content: "b\n" }),
			fauxAssistantMessage("done"),
			toolUse("write", { path: "a.txt", content: "c\n" }),
			fauxAssistantMessage("done again"),
		]);
		try {
			await t.session.prompt("change a.txt");
			await t.session.prompt("change it again");
			await t.session.waitForIdle();
			const warnings = t.notices.filter((n) => n.level === "warning");
			expect(warnings).toHaveLength(1); // the same failure is not announced after every run
			expect(warnings[0].message).toMatch(/the review failed \(unknown-model\): Unknown model nosuch\/model/);
			expect(t.main.state.callCount).toBe(4);
			expect(t.reviewer.state.callCount).toBe(0);
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/reviews this session: 2/);
		} finally {
			await t.dispose();
		}
	});

	it("reports a provider error from the reviewer", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		t.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done")]);
		t.reviewer.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "429 Too Many Requests: rate limit reached" }),
		]);
		try {
			await t.session.prompt("change a.txt");
			await t.session.waitForIdle();
			expect(t.notices.find((n) => n.level === "warning")?.message).toMatch(
				/the review failed \(rate-limit\): 429 Too Many Requests/,
			);
			// The same limit again, in other words (counters and request ids change): not announced again.
			t.main.setResponses([toolUse("write", { path: "a.txt", content: "c\n" }), fauxAssistantMessage("done")]);
			t.reviewer.setResponses([
				fauxAssistantMessage("", {
					stopReason: "error",
					errorMessage: "429 rate limit: retry after 17s (request req_8f2a, 3/3 used)",
				}),
			]);
			await t.session.prompt("change a.txt again");
			await t.session.waitForIdle();
			expect(t.notices.filter((n) => /the review failed/.test(n.message))).toHaveLength(1);
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/last problem: review failed \(rate-limit\): 429 rate limit: retry after 17s/);
		} finally {
			await t.dispose();
		}
	});

	it("keeps a failed review's paths pending, and reviews them with the next run's", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "b.txt": "b\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		let next = "";
		t.main.setResponses([
			toolUse("write", { path: "a.txt", content: "a2\n" }),
			fauxAssistantMessage("done"),
			toolUse("write", { path: "b.txt", content: "b2\n" }),
			fauxAssistantMessage("done too"),
		]);
		t.reviewer.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 upstream overloaded" }),
			(ctx) => ((next = firstUser(ctx as Ctx)), fauxAssistantMessage("clean")),
		]);
		try {
			await t.session.prompt("change a.txt");
			await t.session.waitForIdle();
			const pending = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(pending).toMatch(/Pending: 1 path\(s\), review failed \(provider\): a\.txt/);
			await t.session.prompt("now change b.txt");
			await t.session.waitForIdle();
			expect(next).toMatch(/<<<DATA \w+: changed paths>>>\na\.txt\nb\.txt\n<<<END DATA \w+>>>/);
			expect(next).toMatch(/<<<DATA \w+: carried-over paths>>>\na\.txt\n/);
			const after = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(after).toMatch(/Pending: nothing/);
		} finally {
			await t.dispose();
		}
	});

	it("answers malformed watchdog_warn arguments with an error the reviewer can fix, and tells the user", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		let toolError = "";
		t.main.setResponses([
			toolUse("write", { path: "a.txt", content: "b\n" }),
			fauxAssistantMessage("done"),
			fauxAssistantMessage("ack"),
		]);
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
			expect(toolError).toMatch(/Not recorded: .*evidence.*"importance" must be low, medium or high/);
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
			expect(input).toMatch(
				/## Changed paths \(1\)\n<<<DATA \w+: changed paths>>>\nnotes\.md\n<<<END DATA \w+>>>\n\(Not a git repository/,
			);
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
		const first = await startSession({
			cwd: repo,
			userSettings: compactEarly,
			sessionManager: SessionManager.create(repo, sessionDir),
		});
		first.main.setResponses([
			fauxAssistantMessage("Noted."),
			fauxAssistantMessage("Understood."),
			fauxAssistantMessage("Summary of the work so far."),
			fauxAssistantMessage("Summary of the turn prefix."),
		]);
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
		const resumed = await startSession({
			cwd: repo,
			agentDir: first.agentDir,
			userSettings: ON,
			sessionManager: SessionManager.open(file as string, sessionDir),
		});
		let input = "";
		resumed.main.setResponses([toolUse("write", { path: "a.txt", content: "B\n" }), fauxAssistantMessage("done")]);
		resumed.reviewer.setResponses([(ctx) => ((input = firstUser(ctx as Ctx)), fauxAssistantMessage("clean"))]);
		try {
			await resumed.session.prompt("Requirement two: make a.txt say b");
			await resumed.session.waitForIdle();
			expect(input).toMatch(
				/## What the user asked, oldest first\n1\. Requirement one: keep a\.txt lowercase\n2\. Also note the file is small\n3\. Requirement two: make a\.txt say b\n/,
			);
			expect(input).not.toMatch(/You are the watchdog/);
		} finally {
			await resumed.dispose();
		}
	});
});

describe("WATCHDOG.md", () => {
	it("gives the reviewer the project's then the user's standing instructions, read fresh, unless turned off", async () => {
		// The project's file is there when the session starts (one added later is held back: see test/cli/rpc-trust-snapshot.test.ts).
		const repo = makeGitRepo({ "a.txt": "a\n", ".pi/WATCHDOG.md": "Project rule: never touch migrations.\n" });
		const t = await startSession({ cwd: repo, userSettings: ON });
		writeFileSync(join(t.agentDir, "WATCHDOG.md"), "User rule: prefer small diffs.\n");
		const inputs: string[] = [];
		const capture = (ctx: unknown) => (inputs.push(firstUser(ctx as Ctx)), fauxAssistantMessage("clean"));
		t.main.setResponses([
			toolUse("write", { path: "a.txt", content: "b\n" }),
			fauxAssistantMessage("done"),
			toolUse("write", { path: "a.txt", content: "c\n" }),
			fauxAssistantMessage("done"),
		]);
		t.reviewer.setResponses([capture, capture]);
		try {
			await t.session.prompt("change a.txt");
			expect(inputs[0]).toMatch(
				/## Standing instructions \(WATCHDOG\.md\)\n\(project: .*\)\nProject rule: never touch migrations\.\n\n\(user: .*\)\nUser rule: prefer small diffs\./,
			);
			await writeFileAndDisable(t);
			await t.session.prompt("change it again");
			expect(inputs[1]).not.toContain("Project rule");
			expect(inputs[1]).not.toContain("User rule");
			expect(inputs[1]).toContain("## Standing instructions (WATCHDOG.md)\nNot read: WATCHDOG.md is turned off");
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
		const first = await startSession({
			cwd: repo,
			userSettings: ON,
			sessionManager: SessionManager.create(repo, sessionDir),
		});
		first.main.setResponses([toolUse("write", { path: "a.txt", content: "b\n" }), fauxAssistantMessage("done")]);
		first.reviewer.setResponses([
			warn({
				importance: "medium",
				severity: "concern",
				summary: "a.txt lost its only line",
				evidence: "a.txt now reads b",
			}),
			fauxAssistantMessage("ok"),
		]);
		let file: string | undefined;
		try {
			await first.session.prompt("change a.txt");
			await first.session.waitForIdle();
			file = first.session.sessionManager.getSessionFile();
		} finally {
			await first.dispose();
		}
		const again = await startSession({
			cwd: repo,
			agentDir: first.agentDir,
			userSettings: ON,
			sessionManager: SessionManager.open(file as string, sessionDir),
		});
		try {
			const status = (await again.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/last review: .*faux-reviewer\/reviewer-model .*1 finding/);
			expect(status).toMatch(/changed paths: a\.txt/);
			expect(status).toMatch(/1\. concern \(shown to you\) \[reviewer\] a\.txt lost its only line/);
			expect(status).toMatch(/reviews this session: 1/);
		} finally {
			await again.dispose();
		}
	});
});
