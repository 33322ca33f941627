// The permission arbiter in real foreground launches (see permissions-helpers.ts): an "ask" rule
// pauses the child's call for a model that sees what it needs and approves or denies, and every
// way the arbiter can fail denies the call.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, type FauxResponseStep } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { noticeText, startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import {
	ARBITER_ON,
	arbiterScript,
	childResults,
	decision,
	launch,
	permissionLines,
	writeRules,
} from "./permissions-helpers.ts";

describe("ask", () => {
	it("pauses the call for the arbiter, which sees the tool, a redacted preview, the role, the task and the recent calls; approve runs it", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n", "notes.txt": "old\n" });
		const t = await startSession({ cwd: repo, userSettings: ARBITER_ON });
		writeRules(t.agentDir, { "wr*": "ask" });
		const { inputs } = arbiterScript(t, [decision("approve", "writing the notes is the task")]);
		try {
			const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
			await launch(
				t,
				[
					["read", { path: "README.md" }],
					["ls", { path: "." }],
					["write", { path: "notes.txt", content: `token = "${secret}"\nsummary: hello\n` }],
				],
				"Summarise README.md into notes.txt",
			);
			const results = childResults(t);
			expect(results.map((r) => [r.tool, r.isError])).toEqual([
				["read", false],
				["ls", false],
				["write", false],
			]);
			expect(readFileSync(join(repo, "notes.txt"), "utf8")).toContain("summary: hello");
			expect(inputs).toHaveLength(1);
			const shown = inputs[0];
			expect(shown).toContain("Tool: write");
			expect(shown).toContain("Role: worker");
			expect(shown).toContain("Summarise README.md into notes.txt");
			expect(shown).toContain("path: notes.txt");
			expect(shown).toContain("summary: hello");
			expect(shown).not.toContain(secret);
			expect(shown).toMatch(/read README\.md\nls \./);
			expect(shown).toContain('"wr*": "ask"');
			const [line] = permissionLines(t);
			expect(line).toMatchObject({
				role: "worker",
				tool: "write",
				decision: "approve",
				how: "arbiter",
				reason: "writing the notes is the task",
				model: "faux-reviewer/reviewer-model",
			});
			expect(line.latencyMs).toBeGreaterThanOrEqual(0);
			expect(JSON.stringify(permissionLines(t))).not.toContain("summary: hello");
		} finally {
			await t.dispose();
		}
	});

	it("works with the child watchdogs off: the main watchdog's model arbitrates, and status says so", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" } }),
		});
		writeRules(t.agentDir, { read: "ask" });
		const { inputs } = arbiterScript(t, [decision("approve", "reading is the task")]);
		try {
			const status = noticeText(await t.command("/subagents-watchdog status"));
			expect(status).toContain("ask permissions: the main watchdog's model");
			await launch(t, [["read", { path: "README.md" }]]);
			expect(childResults(t).map((r) => [r.tool, r.isError])).toEqual([["read", false]]);
			expect(inputs).toHaveLength(1);
			expect(permissionLines(t)[0]).toMatchObject({
				tool: "read",
				decision: "approve",
				how: "arbiter",
				model: "faux-reviewer/reviewer-model",
			});
		} finally {
			await t.dispose();
		}
	});

	it("denies with the arbiter's reason, and reuses the decision for an identical ask in the run", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({ cwd: repo, userSettings: ARBITER_ON });
		writeRules(t.agentDir, { write: "ask" });
		const { inputs } = arbiterScript(t, [decision("deny", "the task is read-only")]);
		try {
			const call: [string, Record<string, unknown>] = ["write", { path: "x.txt", content: "x\n" }];
			await launch(t, [call, call]);
			expect(existsSync(join(repo, "x.txt"))).toBe(false);
			const [first, second] = childResults(t);
			expect(first.isError && second.isError).toBe(true);
			expect(first.text).toContain("The permission arbiter denied this write call");
			expect(first.text).toContain("the task is read-only");
			expect(second.text).toContain("decided earlier in this run");
			expect(inputs).toHaveLength(1);
			expect(permissionLines(t).map((l) => [l.how, l.decision, l.reason])).toEqual([
				["arbiter", "deny", "the task is read-only"],
				["reused", "deny", "the task is read-only"],
			]);
		} finally {
			await t.dispose();
		}
	});
});

describe("every arbiter failure denies", () => {
	const cases: Array<{ name: string; settings: unknown; answer?: FauxResponseStep; failure: string; says: RegExp }> = [
		{
			name: "no model",
			settings: wd({ enabled: true, main: { model: "nowhere/none" }, children: { enabled: true } }),
			failure: "no-model",
			says: /no usable model: Unknown model nowhere\/none/,
		},
		{
			name: "a timeout",
			settings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model" },
				children: { enabled: true },
				permissions: { timeoutMs: 1000 },
			}),
			answer: (_ctx, options) =>
				new Promise((resolve) => {
					const done = () => resolve(decision("approve"));
					const timer = setTimeout(done, 3000);
					options?.signal?.addEventListener("abort", () => (clearTimeout(timer), done()));
				}),
			failure: "timeout",
			says: /did not answer within 1000 ms \(permissions\.timeoutMs\)/,
		},
		{
			name: "no tool call",
			settings: ARBITER_ON,
			answer: fauxAssistantMessage("Sure, go ahead."),
			failure: "no-tool-call",
			says: /did not call permission_decision/,
		},
		{
			name: "malformed arguments",
			settings: ARBITER_ON,
			answer: decision("yes"),
			failure: "malformed",
			says: /arguments are not \{ decision/,
		},
		{
			name: "an error",
			settings: ARBITER_ON,
			answer: () => {
				throw new Error("provider exploded");
			},
			failure: "error",
			says: /provider exploded|ended with error/,
		},
	];
	for (const c of cases) {
		it(`denies on ${c.name}`, async () => {
			const repo = makeGitRepo({ "README.md": "hello\n" });
			const t = await startSession({ cwd: repo, userSettings: c.settings as Record<string, unknown> });
			writeRules(t.agentDir, { read: "ask" });
			arbiterScript(t, c.answer ? [c.answer] : []);
			try {
				await launch(t, [["read", { path: "README.md" }]]);
				const [read] = childResults(t);
				expect(read.isError).toBe(true);
				expect(read.text).toContain("Denied: this read call needs approval");
				expect(read.text).toMatch(c.says);
				const [line] = permissionLines(t);
				expect(line).toMatchObject({ tool: "read", decision: "deny", how: "failure", failure: c.failure });
				expect(line.reason).toMatch(c.says);
			} finally {
				await t.dispose();
			}
		});
	}
});
