// Child tool permissions in real foreground launches: the parent is a real in-process Pi
// session, each child a real Pi session on its runtime with our watchdog, the rules in
// `<agentDir>/extensions/subagent/config.json` and in agent frontmatter. Only the models'
// judgement is scripted: the child's calls (main faux) and the arbiter's answer (reviewer faux).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AssistantMessage, fauxAssistantMessage, type FauxResponseStep } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession, type TestSession } from "../../support/pi-session.ts";
import { wd, writeJson } from "../../support/settings-files.ts";
import { text, toolUse } from "../review/review-helpers.ts";

const ARBITER_ON = wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, children: { enabled: true } });

function writeRules(agentDir: string, rules: unknown): string {
	const file = join(agentDir, "extensions", "subagent", "config.json");
	writeJson(file, typeof rules === "string" ? rules : { permissions: { rules } });
	return file;
}

const decision = (d: unknown, reason: unknown = "fits the task") =>
	toolUse("permission_decision", { decision: d, reason });

type Ctx = { messages: Array<{ role: string; content: unknown }> };

/**
 * The reviewer faux answers the arbiter's calls from `answers` in order (recording what it was
 * shown) and every other call (a review) with a clean reply.
 */
function arbiterScript(t: TestSession, answers: FauxResponseStep[]): { inputs: string[] } {
	const inputs: string[] = [];
	const queue = [...answers];
	t.reviewer.setResponses(
		Array.from(
			{ length: 40 },
			() =>
				async (ctx: any, options: any, state: any, model: any): Promise<AssistantMessage> => {
					// The faux provider is shown the messages only: the arbiter's input is known by its heading.
					const shown = (ctx as Ctx).messages.map((m) => text(m.content)).join("\n");
					if (!shown.includes("## The call waiting for your decision"))
						return fauxAssistantMessage("Nothing to report.");
					inputs.push(shown);
					const next = queue.shift();
					if (!next) return fauxAssistantMessage("no answer scripted");
					return typeof next === "function" ? await next(ctx, options, state, model) : next;
				},
		),
	);
	return { inputs };
}

/** The tool results the child's calls got, by tool name, read from the child's own session file. */
function childResults(t: TestSession): Array<{ tool: string; text: string; isError: boolean }> {
	const parentResult = t.session.messages
		.filter((m: any) => m.role === "toolResult" && m.toolName === "subagent")
		.map((m: any) => text(m.content))
		.join("\n");
	const file = /session (\S+\.jsonl)/.exec(parentResult)?.[1];
	if (!file) throw new Error(`no child session in: ${parentResult}`);
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l))
		.filter((l) => l.type === "message" && l.message.role === "toolResult")
		.map((l) => ({ tool: l.message.toolName, text: text(l.message.content), isError: l.message.isError }));
}

const subagentResult = (t: TestSession) =>
	t.session.messages
		.filter((m: any) => m.role === "toolResult" && m.toolName === "subagent")
		.map((m: any) => text(m.content))
		.join("\n");

function permissionLines(t: TestSession): any[] {
	const file = join(t.agentDir, "watchdog", "history.jsonl");
	if (!existsSync(file)) return [];
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l))
		.filter((e) => e.kind === "permission");
}

/** One worker launch whose child makes `calls` in turn and then answers. */
async function launch(
	t: TestSession,
	calls: Array<[string, Record<string, unknown>]>,
	task = "Look at README.md and report what it says",
	agent = "worker",
): Promise<void> {
	t.main.setResponses([
		toolUse("subagent", { agent, task }),
		...calls.map(([name, args]) => toolUse(name, args)),
		fauxAssistantMessage("Child done."),
		fauxAssistantMessage("Parent done."),
	]);
	await t.session.prompt("Have a worker look at the README");
	await t.session.waitForIdle();
}

describe("deny and allow", () => {
	it("blocks a denied tool at once with the rule in the reason the child sees, and lets other tools run", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({ cwd: repo });
		const file = writeRules(t.agentDir, { write: "deny" });
		const { inputs } = arbiterScript(t, []);
		try {
			await launch(t, [
				["write", { path: "notes.txt", content: "hi\n" }],
				["read", { path: "README.md" }],
			]);
			expect(existsSync(join(repo, "notes.txt"))).toBe(false);
			const [write, read] = childResults(t);
			expect(write).toMatchObject({ tool: "write", isError: true });
			expect(write.text).toContain(`Blocked by the permission rule "write": "deny" (global config ${file})`);
			expect(read).toMatchObject({ tool: "read", isError: false });
			expect(read.text).toContain("hello");
			expect(inputs).toEqual([]); // a deny needs no model
			const [line] = permissionLines(t);
			expect(line).toMatchObject({
				kind: "permission",
				role: "worker",
				tool: "write",
				decision: "deny",
				how: "rule",
				latencyMs: 0,
			});
			expect(typeof line.run).toBe("string");
			expect(line.rule).toContain('"write": "deny"');
			// `history` shows it
			const shown = (await t.command("/subagents-watchdog history --kind permission")).map((n) => n.message).join("\n");
			expect(shown).toMatch(
				/permission\s+permissions\s+write denied by rule · rule "write": "deny" \(global config .*\) · 0 ms · denied by rule \(child worker, run \d{8}-\d{6}-[0-9a-f]{6}\)/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("lets an agent's frontmatter override a global rule (an explicit allow lifts a global deny)", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({ cwd: repo });
		writeRules(t.agentDir, { write: "deny", edit: "deny" });
		mkdirSync(join(t.agentDir, "agents"), { recursive: true });
		writeFileSync(
			join(t.agentDir, "agents", "scribe.md"),
			"---\nname: scribe\ndescription: writes notes\ntools: read, write, edit\npermission:\n  write: allow\n---\nYou write notes.\n",
		);
		arbiterScript(t, []);
		try {
			await launch(
				t,
				[
					["write", { path: "notes.txt", content: "hi\n" }],
					["edit", { path: "notes.txt", edits: [{ oldText: "hi", newText: "ho" }] }],
				],
				"Write notes.txt",
				"scribe",
			);
			expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("hi\n");
			const [write, edit] = childResults(t);
			expect(write).toMatchObject({ tool: "write", isError: false });
			expect(edit).toMatchObject({ tool: "edit", isError: true });
			expect(edit.text).toContain('"edit": "deny" (global config');
		} finally {
			await t.dispose();
		}
	});

	it("decides by the most specific rule: an exact name beats a glob, a longer literal beats a shorter one; bash is never gated", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({ cwd: repo, userSettings: ARBITER_ON });
		writeRules(t.agentDir, { "*": "deny", "l*": "ask", read: "allow", "r*": "deny", "wri?e": "allow", "w*": "deny" });
		arbiterScript(t, [decision("approve", "listing the folder fits the task")]);
		try {
			await launch(t, [
				["read", { path: "README.md" }],
				["ls", {}],
				["write", { path: "n.txt", content: "n\n" }],
				["edit", { path: "n.txt", edits: [{ oldText: "n", newText: "m" }] }],
				["bash", { command: "echo ran" }],
			]);
			const results = childResults(t);
			expect(results.map((r) => [r.tool, r.isError])).toEqual([
				["read", false],
				["ls", false],
				["write", false],
				["edit", true],
				["bash", false],
			]);
			expect(results[3].text).toContain('"*": "deny"');
			expect(results[4].text).toContain("ran");
			expect(permissionLines(t).map((l) => [l.tool, l.how, l.decision])).toEqual([
				["ls", "arbiter", "approve"],
				["edit", "rule", "deny"],
			]);
		} finally {
			await t.dispose();
		}
	});
});

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
			const status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
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

describe("refused launches", () => {
	const refusals: Array<{ name: string; rules?: unknown; agent?: string; says: RegExp }> = [
		{
			name: "a bash rule in the global config",
			rules: { bash: "ask" },
			says: /"bash": bash cannot be gated by a tool rule: bash policy belongs to a command-level guard/,
		},
		{
			name: "a bash rule in frontmatter",
			agent: "permission:\n  bash: deny\n",
			says: /agents\/gated\.md: the permission rules of agent "gated": "bash": bash cannot be gated/,
		},
		{
			name: "a value other than allow, ask or deny",
			rules: { write: "maybe" },
			says: /config\.json: permissions\.rules\.write: must be allow, ask or deny/,
		},
		{
			name: "rules of the wrong type",
			rules: '{ "permissions": { "rules": ["write"] } }',
			says: /config\.json: permissions\.rules: must be an object of tool name or glob/,
		},
		{
			name: "a misspelt key",
			rules: '{ "permissions": { "rule": { "write": "deny" } } }',
			says: /config\.json: permissions: .*rule/,
		},
		{ name: "invalid JSON", rules: '{ "permissions": ', says: /config\.json: invalid JSON at line 1/ },
	];
	for (const r of refusals) {
		it(`refuses the launch on ${r.name}, naming the file and the problem, and starts nothing`, async () => {
			const t = await startSession();
			if (r.rules !== undefined) writeRules(t.agentDir, typeof r.rules === "string" ? r.rules : r.rules);
			mkdirSync(join(t.agentDir, "agents"), { recursive: true });
			writeFileSync(
				join(t.agentDir, "agents", "gated.md"),
				`---\nname: gated\ndescription: a gated agent\ntools: read\n${r.agent ?? ""}---\nYou read.\n`,
			);
			t.main.setResponses([
				toolUse("subagent", { agent: "gated", task: "read" }),
				fauxAssistantMessage("I will tell the user."),
			]);
			try {
				await t.session.prompt("go");
				await t.session.waitForIdle();
				const result = t.session.messages.find((m: any) => m.role === "toolResult" && m.toolName === "subagent") as any;
				expect(result.isError).toBe(true);
				expect(text(result.content)).toMatch(r.says);
				expect(text(result.content)).toMatch(/[Nn]othing was launched/);
				// the child never ran: the main model answered the launch and then the parent, nothing else
				expect(t.main.state.callCount).toBe(2);
			} finally {
				await t.dispose();
			}
		});
	}
});

it("a launch under rules that only allow installs no gate: no history line and no arbiter call", async () => {
	const repo = makeGitRepo({ "README.md": "hello\n" });
	const t = await startSession({ cwd: repo, userSettings: ARBITER_ON });
	writeRules(t.agentDir, { write: "allow", "mcp__*": "allow" });
	const { inputs } = arbiterScript(t, []);
	try {
		await launch(t, [["read", { path: "README.md" }]]);
		expect(childResults(t)[0].isError).toBe(false);
		expect(inputs).toEqual([]);
		expect(permissionLines(t)).toEqual([]);
		expect(subagentResult(t)).toMatch(/worker .*: done/);
	} finally {
		await t.dispose();
	}
});
