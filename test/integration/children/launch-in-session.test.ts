// Foreground launches through the `subagent` tool in a real Pi session: the children are real
// in-process Pi sessions on the parent's runtime (faux models), each with its own session file
// and our watchdog; real git repositories.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { type Ctx, allText, text, toolUse, warn } from "../review/review-helpers.ts";

const toolResultText = (t: { session: { messages: unknown[] } }, name = "subagent") =>
	(t.session.messages as Array<{ role: string; toolName?: string; content: unknown }>)
		.filter((m) => m.role === "toolResult" && m.toolName === name)
		.map((m) => text(m.content))
		.join("\n---\n");

describe("a single foreground child", () => {
	it("runs the agent as its own Pi session in the parent's tree and returns its answer, counts and session file", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({ cwd: repo });
		let childSystem = "";
		t.main.setResponses([
			toolUse("subagent", { agent: "worker", task: "Create notes.txt saying hi" }),
			// the child's turns (same provider: it inherits the parent's model)
			(ctx) => {
				childSystem = JSON.stringify((ctx as { messages: unknown[] }).messages[0]);
				return toolUse("write", { path: "notes.txt", content: "hi\n" });
			},
			fauxAssistantMessage("Created notes.txt."),
			fauxAssistantMessage("The worker made notes.txt."),
		]);
		try {
			await t.session.prompt("Have a worker create notes.txt");
			await t.session.waitForIdle();
			const result = toolResultText(t);
			expect(result).toMatch(/## worker \(worker, faux\/main-model\): done/);
			expect(result).toContain("Created notes.txt.");
			expect(result).toMatch(/1 tool calls/);
			expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("hi\n");
			// the agent file's body is the child's system prompt
			expect(childSystem).toContain("You are a worker.");
			const sessionFile = /session (\S+\.jsonl)/.exec(result)?.[1];
			expect(sessionFile && existsSync(sessionFile)).toBe(true);
			const lines = readFileSync(sessionFile as string, "utf8")
				.trim()
				.split("\n")
				.map((l) => JSON.parse(l));
			expect(
				lines.some((l) => l.type === "message" && l.message.role === "toolResult" && l.message.toolName === "write"),
			).toBe(true);
		} finally {
			await t.dispose();
		}
	});

	it("refuses an unknown agent with the list of available ones", async () => {
		const t = await startSession();
		t.main.setResponses([toolUse("subagent", { agent: "wizard", task: "do magic" }), fauxAssistantMessage("ok")]);
		try {
			await t.session.prompt("go");
			await t.session.waitForIdle();
			const result = toolResultText(t);
			expect(result).toMatch(/unknown agent "wizard"\. Available: .*reviewer, scout, worker/);
		} finally {
			await t.dispose();
		}
	});

	it("refuses a launch whose model does not resolve before anything starts, naming the child and the models there are", async () => {
		const t = await startSession();
		let childRequests = 0;
		t.main.setResponses([
			toolUse("subagent", {
				tasks: [
					{ agent: "worker", task: "write a.txt" },
					{ agent: "scout", task: "look around", model: "nowhere/none" },
				],
			}),
			(ctx) => (allText(ctx).includes("write a.txt") && childRequests++, fauxAssistantMessage("ok")),
			fauxAssistantMessage("ok"),
		]);
		try {
			await t.session.prompt("go");
			await t.session.waitForIdle();
			const result = toolResultText(t);
			// As a background launch does: one unresolved child refuses the whole launch, so the other never runs.
			expect(result).toMatch(
				/not launched: scout#2: model nowhere\/none is not known to Pi\. Available: .*faux\/main-model/,
			);
			expect(childRequests).toBe(0);
			expect(
				existsSync(join(t.agentDir, "watchdog", "runs")) ? readdirSync(join(t.agentDir, "watchdog", "runs")) : [],
			).toEqual([]);
		} finally {
			await t.dispose();
		}
	});
});

describe("faults", () => {
	it("fails a child whose agent cannot start (an extension that does not load) and carries on", async () => {
		const t = await startSession();
		mkdirSync(join(t.agentDir, "agents"), { recursive: true });
		writeFileSync(
			join(t.agentDir, "agents", "broken.md"),
			"---\nname: broken\ndescription: loads a missing extension\nextensions: [./missing-extension.ts]\n---\nYou are broken.\n",
		);
		t.main.setResponses([
			toolUse("subagent", { agent: "broken", task: "anything" }),
			fauxAssistantMessage("I will tell the user."),
		]);
		try {
			await t.session.prompt("go");
			await t.session.waitForIdle();
			const result = toolResultText(t);
			expect(result).toMatch(/## broken \(broken, faux\/main-model\): failed, not accepted/);
			expect(result).toMatch(/Error: the agent's extensions failed to load: .*missing-extension\.ts/);
			expect(t.session.getLastAssistantText()).toBe("I will tell the user.");
		} finally {
			await t.dispose();
		}
	});
});

describe("a child's progress row", () => {
	it("says running, not queued, once the child has started, before its first tool", async () => {
		const t = await startSession({ cwd: makeGitRepo({ "README.md": "hello\n" }) });
		const progress: string[] = [];
		t.session.subscribe((e) => {
			if (e.type === "tool_execution_update" && e.toolName === "subagent")
				progress.push(text((e.partialResult as { content?: unknown })?.content));
		});
		let shown = "";
		t.main.setResponses([
			toolUse("subagent", { agent: "scout", task: "Look around" }),
			() => ((shown = progress.at(-1) ?? ""), fauxAssistantMessage("Looked.")),
			fauxAssistantMessage("Done."),
		]);
		try {
			await t.session.prompt("Have a scout look");
			await t.session.waitForIdle();
			expect(shown).toMatch(/\nscout \[1\/1\] running · 0 tools/);
		} finally {
			await t.dispose();
		}
	});
});

describe("child watchdogs", () => {
	it("reviews inside the child, continues the child on its high finding, and only high findings reach the parent's model (through its sink)", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const settings = wd({
			enabled: true,
			main: { model: "faux-reviewer/reviewer-model:high" },
			children: { enabled: true },
		});
		const t = await startSession({ cwd: repo, userSettings: settings });
		let childContinuation = "";
		let parentAfter = "";
		let parentReviewInput = "";
		const progress: string[] = [];
		t.session.subscribe((e) => {
			if (e.type === "tool_execution_update" && e.toolName === "subagent")
				progress.push(text((e.partialResult as { content?: unknown })?.content));
		});
		t.main.setResponses([
			toolUse("subagent", { agent: "worker", task: "Shorten greet" }),
			toolUse("write", { path: "src/app.ts", content: "export const greet = (name: string) => 'hi';\n" }),
			fauxAssistantMessage("Shortened greet."),
			// the child's continuation after its watchdog's high finding
			(ctx) => {
				childContinuation = allText(ctx as Ctx);
				return toolUse("write", { path: "src/app.ts", content: "export const greet = (n: string) => `hi ${n}`;\n" });
			},
			fauxAssistantMessage("Fixed: greet uses the name again."),
			(ctx) => {
				parentAfter = allText(ctx as Ctx);
				return fauxAssistantMessage("Done.");
			},
		]);
		t.reviewer.setResponses([
			// the child's first review: one high blocker and one low concern
			warn(),
			warn({
				summary: "A low-importance nit about naming",
				evidence: "src/app.ts: the parameter could be called who",
				recommendedAction: "Rename it if you like",
				importance: "low",
				severity: "concern",
				category: "other",
			}),
			fauxAssistantMessage("Reported."),
			// the child's second review, after its fix: clean
			fauxAssistantMessage("Looks right now."),
			// the parent's own review of the aggregate change: clean
			(ctx) => {
				parentReviewInput = allText(ctx as Ctx);
				return fauxAssistantMessage("Fine.");
			},
		]);
		try {
			await t.session.prompt("Have a worker shorten greet");
			await t.session.waitForIdle();
			expect(childContinuation).toContain("The new greet() drops the name argument");
			// live progress while it ran: the child, its current tool, counts
			expect(progress.some((p) => /worker \[1\/1\] running · write · 1 tools/.test(p))).toBe(true);
			// the parent's own boundary review covers what the child changed
			expect(parentReviewInput).toContain("src/app.ts");
			const result = toolResultText(t);
			expect(result).toMatch(/worker .*: done/);
			// the high finding reaches the parent's model through its sink, after the tool's answer; the low one stays out of its context
			expect(result).not.toContain("The new greet() drops the name argument");
			expect(parentAfter).toContain("The new greet() drops the name argument");
			expect(parentAfter).not.toContain("A low-importance nit about naming");
			// the blocker was addressed (the child's last review was clean): accepted
			expect(result).not.toContain("not accepted");
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/child findings \(last 2, newest first\)/);
			expect(status).toMatch(/A low-importance nit about naming/);
			// the child's history lines carry its role and run id, and filter by role
			const history = (await t.command("/subagents-watchdog history --source worker")).map((n) => n.message).join("\n");
			const all = (await t.command("/subagents-watchdog history")).map((n) => n.message).join("\n");
			expect(all).toMatch(/launch .*run \d{8}-\d{6}-[0-9a-f]{6} \(single\): worker done/);
			expect(history).toMatch(
				/finding .*The new greet\(\) drops the name argument.*\(child worker, run \d{8}-\d{6}-[0-9a-f]{6}\)/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("does not accept a child whose blocker is still open", async () => {
		const repo = makeGitRepo({ "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" });
		const settings = wd({
			enabled: true,
			main: { model: "faux-reviewer/reviewer-model:high" },
			stalemateRepeats: 2,
			children: { enabled: true },
		});
		const t = await startSession({ cwd: repo, userSettings: settings });
		t.main.setResponses([
			toolUse("subagent", { agent: "worker", task: "Shorten greet" }),
			toolUse("write", { path: "src/app.ts", content: "export const greet = (name: string) => 'hi';\n" }),
			fauxAssistantMessage("Shortened greet."),
			// continued by its watchdog, the child changes something else but not the problem
			toolUse("write", { path: "src/app.ts", content: "export const greet = (name: string) => 'hello';\n" }),
			fauxAssistantMessage("I think it is fine."),
			fauxAssistantMessage("Parent done."),
		]);
		t.reviewer.setResponses([
			warn(),
			fauxAssistantMessage("Reported."),
			warn(),
			fauxAssistantMessage("Reported again."),
			fauxAssistantMessage("Parent review fine."),
		]);
		try {
			await t.session.prompt("Have a worker shorten greet");
			await t.session.waitForIdle();
			const result = toolResultText(t);
			expect(result).toMatch(/not accepted/);
			expect(result).toMatch(
				/Failed checks: watchdog-blocker: The new greet\(\) drops the name argument \(stalemate\)/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("nudges a child that stops on an announced step (idle.children is on by default), and the child carries on", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model" },
				lsp: { enabled: false },
				children: { enabled: true },
			}),
		});
		let nudge = "";
		t.main.setResponses([
			toolUse("subagent", { agent: "worker", task: "Create notes.txt saying hi" }),
			// the child stops right after announcing its next step
			fauxAssistantMessage("I have read the task. Next I'll write notes.txt with the greeting."),
			// nudged by its own watchdog, it carries on
			(ctx) => {
				nudge = text((ctx as Ctx).messages.at(-1)?.content);
				return toolUse("write", { path: "notes.txt", content: "hi\n" });
			},
			fauxAssistantMessage("Created notes.txt."),
			fauxAssistantMessage("The worker made notes.txt."),
		]);
		t.reviewer.setResponses([fauxAssistantMessage("Fine."), fauxAssistantMessage("Fine.")]);
		try {
			await t.session.prompt("Have a worker create notes.txt");
			await t.session.waitForIdle();
			expect(nudge).toMatch(/stopped before the work was finished/);
			expect(nudge).toMatch(/Stopped right after announcing a next step/);
			expect(nudge).toMatch(/The task: .*Create notes\.txt saying hi/s);
			expect(nudge).toMatch(
				/Where you stopped: "I have read the task\. Next I'll write notes\.txt with the greeting\."/,
			);
			expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("hi\n");
			const result = toolResultText(t);
			expect(result).toMatch(/worker .*: done/);
			expect(result).toContain("Created notes.txt.");
			// the nudge went to the child; the parent's model is not told about it as a problem
			expect(result).not.toMatch(/Watchdog findings|Stopped right after/);
			// the nudge is in the child's history lines, with its role and run, and the role filter finds it
			const history = (await t.command("/subagents-watchdog history --source worker")).map((n) => n.message).join("\n");
			expect(history).toMatch(
				/nudge .*Stopped right after announcing a next step.*\(child worker, run \d{8}-\d{6}-[0-9a-f]{6}\)/,
			);
			const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
			expect(status).toMatch(/Stopped right after announcing a next step/); // among the child findings that rose
		} finally {
			await t.dispose();
		}
	});
});
