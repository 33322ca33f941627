// Parallel children in git worktrees (their changes merged back, a conflict kept as a patch)
// and chains with {previous}, in a real Pi session with faux models. Children running side by
// side share the faux model, so one script answers every request by the task it belongs to.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { git, makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { tempDir } from "../../support/temp.ts";
import { type Ctx, text, toolUse } from "../review/review-helpers.ts";

type Turn = (ctx: Ctx) => ReturnType<typeof fauxAssistantMessage>;
const firstUserText = (ctx: Ctx) => text(ctx.messages.find((m) => m.role === "user")?.content);
const results = (ctx: Ctx) => ctx.messages.filter((m) => m.role === "toolResult").length;

/** One reply per request, chosen by the marker in the conversation's first user message. */
function byTask(scripts: Record<string, Turn[]>): Turn {
	return (ctx) => {
		const first = firstUserText(ctx);
		const key = Object.keys(scripts).find((k) => first.includes(k));
		if (!key) return fauxAssistantMessage(`no script for: ${first.slice(0, 80)}`);
		const steps = scripts[key];
		return steps[Math.min(results(ctx), steps.length - 1)](ctx);
	};
}

const subagentResult = (t: { session: { messages: unknown[] } }) =>
	(t.session.messages as Array<{ role: string; toolName?: string; content: unknown }>)
		.filter((m) => m.role === "toolResult" && m.toolName === "subagent")
		.map((m) => text(m.content))
		.join("\n");

describe("parallel children", () => {
	it("gives each writing child a worktree from the parent's state and lands both changes", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n", "b.txt": "b\n" });
		// an uncommitted change in the parent is part of what the children start from
		const t = await startSession({ cwd: repo });
		const seen: Record<string, string> = {};
		const script = byTask({
			PARENT: [
				() =>
					toolUse("subagent", {
						tasks: [
							{ agent: "worker", task: "TASK-A change a.txt" },
							{ agent: "worker", task: "TASK-B change b.txt" },
						],
					}),
				() => fauxAssistantMessage("Both done."),
			],
			"TASK-A": [
				() => toolUse("read", { path: "c.txt" }),
				(ctx) => ((seen.a = text(ctx.messages.at(-1)?.content)), toolUse("write", { path: "a.txt", content: "A\n" })),
				() => fauxAssistantMessage("a.txt changed"),
			],
			"TASK-B": [
				() => toolUse("write", { path: "b.txt", content: "B\n" }),
				() => fauxAssistantMessage("b.txt changed"),
			],
		});
		t.main.setResponses(Array.from({ length: 12 }, () => script as never));
		try {
			writeFileSync(join(repo, "c.txt"), "uncommitted\n");
			await t.session.prompt("PARENT: change both files in parallel");
			await t.session.waitForIdle();
			const result = subagentResult(t);
			expect(seen.a).toContain("uncommitted");
			expect(result).toMatch(/2 children: 2 done, 2 accepted/);
			expect(result).toMatch(/Changes landed in your tree: a\.txt/);
			expect(result).toMatch(/Changes landed in your tree: b\.txt/);
			expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("A\n");
			expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("B\n");
			// the worktrees are gone and git no longer lists them
			expect(git(repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
		} finally {
			await t.dispose();
		}
	});

	it("shows each child as running, not queued, from the moment it starts (before its first tool)", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = await startSession({ cwd: repo });
		const progress: string[] = [];
		t.session.subscribe((e) => {
			if (e.type === "tool_execution_update" && e.toolName === "subagent")
				progress.push(text((e.partialResult as { content?: unknown })?.content));
		});
		const seen: Record<string, string> = {};
		const script = byTask({
			PARENT: [
				() =>
					toolUse("subagent", {
						tasks: [
							{ agent: "scout", task: "ROW-A" },
							{ agent: "scout", task: "ROW-B" },
						],
					}),
				() => fauxAssistantMessage("Both done."),
			],
			// Each child's first request: what the parent showed last while this child was already running.
			"ROW-A": [() => ((seen.a = progress.at(-1) ?? ""), fauxAssistantMessage("a"))],
			"ROW-B": [() => ((seen.b = progress.at(-1) ?? ""), fauxAssistantMessage("b"))],
		});
		t.main.setResponses(Array.from({ length: 8 }, () => script as never));
		try {
			await t.session.prompt("PARENT: two scouts");
			await t.session.waitForIdle();
			expect(seen.a).toMatch(/^scout#1 \[1\/2\] running · 0 tools/m);
			expect(seen.b).toMatch(/^scout#2 \[2\/2\] running · 0 tools/m);
			expect(`${seen.a}\n${seen.b}`).not.toContain("queued");
		} finally {
			await t.dispose();
		}
	});

	it("leaves the parent's file alone on a conflict and keeps the child's patch", async () => {
		const repo = makeGitRepo({ "shared.txt": "one\ntwo\nthree\n" });
		const t = await startSession({ cwd: repo });
		const script = byTask({
			PARENT: [
				() =>
					toolUse("subagent", {
						tasks: [
							{ agent: "worker", task: "TASK-A edit shared" },
							{ agent: "worker", task: "TASK-B edit shared" },
						],
					}),
				() => fauxAssistantMessage("Done."),
			],
			"TASK-A": [
				() => toolUse("write", { path: "shared.txt", content: "one\nTWO-A\nthree\n" }),
				() => fauxAssistantMessage("edited (A)"),
			],
			"TASK-B": [
				() => toolUse("write", { path: "shared.txt", content: "one\nTWO-B\nthree\n" }),
				() => fauxAssistantMessage("edited (B)"),
			],
		});
		t.main.setResponses(Array.from({ length: 8 }, () => script as never));
		try {
			await t.session.prompt("PARENT: edit shared in parallel");
			await t.session.waitForIdle();
			const result = subagentResult(t);
			const landed = readFileSync(join(repo, "shared.txt"), "utf8");
			// whichever landed first is in the tree, whole; the other is a conflict with its patch kept
			expect(["one\nTWO-A\nthree\n", "one\nTWO-B\nthree\n"]).toContain(landed);
			expect(landed).not.toContain("<<<<<<<");
			expect(result).toMatch(
				/Merge conflict in shared\.txt: your files were left as they were; the child's patch is at (\S+\.patch)\./,
			);
			const patch = /the child's patch is at (\S+\.patch)\./.exec(result)?.[1] as string;
			expect(existsSync(patch)).toBe(true);
			expect(readFileSync(patch, "utf8")).toMatch(/^\+TWO-[AB]$/m);
			expect(result).toMatch(/1 accepted/);
			expect(result).toMatch(/Failed checks: merge conflict: shared\.txt/);
		} finally {
			await t.dispose();
		}
	});

	it("runs writing children one after another in the parent's folder when it is not a git repository, and says so", async () => {
		const t = await startSession();
		try {
			const result = await twoWriters(t, [
				{ agent: "worker", task: "TASK-A" },
				{ agent: "worker", task: "TASK-B" },
			]);
			expect(result).toMatch(
				/No worktrees \(.*not a git repository.*\): the writing children ran one after another in your tree instead\./,
			);
			expect(readFileSync(join(t.cwd, "a.txt"), "utf8")).toBe("A\n");
			expect(readFileSync(join(t.cwd, "b.txt"), "utf8")).toBe("B\n");
		} finally {
			await t.dispose();
		}
	});

	it("outside any repository takes a cwd anywhere that exists: writers work there directly, and the result says so", async () => {
		const t = await startSession();
		const elsewhere = tempDir("pi-watchdog-elsewhere-");
		mkdirSync(join(t.cwd, "sub"));
		try {
			const result = await twoWriters(t, [
				{ agent: "worker", task: "TASK-A", cwd: "sub" },
				{ agent: "worker", task: "TASK-B", cwd: elsewhere },
			]);
			expect(result).toMatch(/No worktrees \(.*not a git repository.*\): the writing children ran one after another/);
			expect(readFileSync(join(t.cwd, "sub", "a.txt"), "utf8")).toBe("A\n");
			expect(readFileSync(join(elsewhere, "b.txt"), "utf8")).toBe("B\n");
		} finally {
			await t.dispose();
		}
	});
});

/** Two writers launched side by side with `tasks` (TASK-A writes a.txt, TASK-B b.txt); the launch's result text. */
async function twoWriters(
	t: Awaited<ReturnType<typeof startSession>>,
	tasks: Array<Record<string, string>>,
): Promise<string> {
	const script = byTask({
		PARENT: [() => toolUse("subagent", { tasks }), () => fauxAssistantMessage("Done.")],
		"TASK-A": [() => toolUse("write", { path: "a.txt", content: "A\n" }), () => fauxAssistantMessage("A")],
		"TASK-B": [() => toolUse("write", { path: "b.txt", content: "B\n" }), () => fauxAssistantMessage("B")],
	});
	t.main.setResponses(Array.from({ length: 8 }, () => script as never));
	await t.session.prompt("PARENT: go");
	await t.session.waitForIdle();
	return subagentResult(t);
}

describe("a chain", () => {
	it("gives each step the previous step's final answer in place of {previous}", async () => {
		const t = await startSession();
		let secondTask = "";
		t.main.setResponses([
			toolUse("subagent", {
				chain: [
					{ agent: "scout", task: "Find the config file" },
					{ agent: "worker", task: "Fix the file named here: {previous}" },
				],
			}),
			fauxAssistantMessage("The config is at conf/app.json"),
			(ctx) => {
				secondTask = firstUserText(ctx as Ctx);
				return fauxAssistantMessage("Fixed.");
			},
			fauxAssistantMessage("Chain finished."),
		]);
		try {
			await t.session.prompt("Find and fix the config");
			await t.session.waitForIdle();
			expect(secondTask).toBe("Fix the file named here: The config is at conf/app.json");
			expect(subagentResult(t)).toMatch(/scout#1 .*: done[\s\S]*worker#2 .*: done/);
		} finally {
			await t.dispose();
		}
	});
});
