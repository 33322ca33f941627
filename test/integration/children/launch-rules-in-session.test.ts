// Launch rules in a real Pi session with real in-process children (faux models), reviews off:
// `block` refuses single, parallel, chain and background launches before anything starts (no
// run folder, no child session file, no model request for a child); `warn` lets the launch go
// on and the parent's model gets a high concern through the sink. Decisions are in history
// and status; the model judged is the one the child really runs on.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { startSession, type TestSession } from "../../support/pi-session.ts";
import { launchOnce, subagentResult } from "./launch-once.ts";
import { wd } from "../../support/settings-files.ts";
import { type Ctx, text } from "../review/review-helpers.ts";

/** Every .jsonl under the agent folder but the history log: the children's session files. */
function childSessionFiles(dir: string): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter(
		(f) => f.endsWith(".jsonl") && !f.startsWith("watchdog"),
	);
}
const runFolders = (t: TestSession) =>
	existsSync(join(t.agentDir, "watchdog", "runs")) ? readdirSync(join(t.agentDir, "watchdog", "runs")) : [];
const historyLines = (t: TestSession) => {
	const file = join(t.agentDir, "watchdog", "history.jsonl");
	return existsSync(file)
		? readFileSync(file, "utf8")
				.trim()
				.split("\n")
				.map((l) => JSON.parse(l))
		: [];
};

const rules = (roleModels: Record<string, unknown>, action: "warn" | "block", more: Record<string, unknown> = {}) =>
	wd({ rules: { action, roleModels }, ...more });

describe("block", () => {
	it("refuses a single launch with the rule, the model and the note, and starts nothing", async () => {
		const t = await startSession({
			userSettings: rules({ worker: { deny: ["faux/*"], note: "workers run on the big model only" } }, "block"),
		});
		try {
			const seen = await launchOnce(t, { agent: "worker", task: "write a file" });
			const result = subagentResult(t);
			expect(result?.isError).toBe(true);
			expect(text(result?.content)).toBe(
				[
					"Not launched: a launch rule blocks this child (rules.action is block), so nothing was started.",
					'- worker on faux/main-model:off breaks rules.roleModels.worker.deny "faux/*". Note: workers run on the big model only',
					"Launch on a model the rule allows, or ask the user to change the rule.",
				].join("\n"),
			);
			// the parent's two turns and nothing else: no child ever asked the model
			expect(t.main.state.callCount).toBe(2);
			expect(seen.after).toContain("Not launched: a launch rule blocks this child");
			expect(runFolders(t)).toEqual([]);
			expect(childSessionFiles(t.agentDir)).toEqual([]);
			const decision = historyLines(t).find((l) => l.kind === "launch-rule");
			expect(decision).toMatchObject({
				source: "rules",
				role: "worker",
				label: "worker",
				model: "faux/main-model:off",
				rule: 'rules.roleModels.worker.deny "faux/*"',
				action: "block",
				decision: "blocked",
				started: false,
				note: "workers run on the big model only",
			});
			expect(decision.run).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
			const history = (await t.command("/subagents-watchdog history --kind launch-rule"))
				.map((n) => n.message)
				.join("\n");
			expect(history).toMatch(
				/launch-rule {2}rules {2}blocked · worker on faux\/main-model:off · rules\.roleModels\.worker\.deny "faux\/\*" · action block · note: workers run on the big model only \(child worker, run \d{8}-\d{6}-[0-9a-f]{6}\)/,
			);
			const status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
			expect(status).toMatch(
				/^Launch rules: 1 role with rules, block · last: \d\d:\d\d:\d\d blocked worker on faux\/main-model:off$/m,
			);
			const full = (await t.command("/subagents-watchdog status --all")).map((n) => n.message).join("\n");
			expect(full).toMatch(
				/Launch rules:\n {2}1 role with rules \(action block\): worker\n {2}last decision: \d\d:\d\d:\d\d blocked worker on faux\/main-model:off \(rules\.roleModels\.worker\.deny "faux\/\*"\)/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("refuses a whole parallel launch when one task is blocked, before any task starts", async () => {
		const t = await startSession({
			userSettings: rules({ worker: { deny: ["faux/main-model"] }, scout: { allow: ["faux/*"] } }, "block"),
		});
		try {
			await launchOnce(t, {
				tasks: [
					{ agent: "scout", task: "look" },
					{ agent: "worker", task: "write" },
					{ agent: "reviewer", task: "review" },
				],
			});
			const result = subagentResult(t);
			expect(result?.isError).toBe(true);
			expect(text(result?.content)).toContain(
				'- worker#2 (worker) on faux/main-model:off breaks rules.roleModels.worker.deny "faux/main-model"',
			);
			expect(text(result?.content)).not.toContain("scout#1");
			expect(t.main.state.callCount).toBe(2);
			expect(runFolders(t)).toEqual([]);
			expect(childSessionFiles(t.agentDir)).toEqual([]);
			// the allowed scout is recorded as not started; the reviewer has no rule
			expect(
				historyLines(t)
					.filter((l) => l.kind === "launch-rule")
					.map((l) => [l.label, l.decision, l.started]),
			).toEqual([
				["scout#1", "allowed", false],
				["worker#2", "blocked", false],
			]);
		} finally {
			await t.dispose();
		}
	});

	it("refuses a chain whose second step is blocked without running the first", async () => {
		const t = await startSession({
			userSettings: rules({ worker: { allow: ["other/*"], note: "ask first" } }, "block"),
		});
		try {
			await launchOnce(t, {
				chain: [
					{ agent: "scout", task: "find it" },
					{ agent: "worker", task: "fix {previous}" },
				],
			});
			const result = subagentResult(t);
			expect(result?.isError).toBe(true);
			expect(text(result?.content)).toContain(
				'- worker#2 (worker) on faux/main-model:off breaks rules.roleModels.worker.allow (none of "other/*" matches). Note: ask first',
			);
			expect(t.main.state.callCount).toBe(2);
			expect(runFolders(t)).toEqual([]);
			expect(childSessionFiles(t.agentDir)).toEqual([]);
		} finally {
			await t.dispose();
		}
	});

	it("refuses a background launch in the parent, so no runner is ever started", async () => {
		const t = await startSession({
			userSettings: rules({ scout: { deny: ["*"], note: "no scouting today" } }, "block"),
		});
		try {
			await launchOnce(t, { agent: "scout", task: "look", async: true });
			const result = subagentResult(t);
			expect(result?.isError).toBe(true);
			expect(text(result?.content)).toContain(
				'- scout on faux/main-model:off breaks rules.roleModels.scout.deny "*". Note: no scouting today',
			);
			expect(runFolders(t)).toEqual([]);
			expect(t.main.state.callCount).toBe(2);
		} finally {
			await t.dispose();
		}
	});

	it("judges the model the child really runs on: the agent's own model and thinking, or the launch's override", async () => {
		const t = await startSession({
			userSettings: rules({ pinned: { deny: ["faux-reviewer/*:high"], note: "not on the reviewer's model" } }, "block"),
		});
		mkdirSync(join(t.agentDir, "agents"), { recursive: true });
		writeFileSync(
			join(t.agentDir, "agents", "pinned.md"),
			"---\nname: pinned\ndescription: runs on a model of its own\nmodel: faux-reviewer/reviewer-model\nthinking: high\ntools: read\n---\nYou are pinned.\n",
		);
		try {
			await launchOnce(t, { agent: "pinned", task: "look" });
			expect(text(subagentResult(t)?.content)).toContain(
				'- pinned on faux-reviewer/reviewer-model:high breaks rules.roleModels.pinned.deny "faux-reviewer/*:high"',
			);
			expect(t.reviewer.state.callCount).toBe(0);
			// the launch's model wins over the agent's; the agent's thinking still applies
			const seen = await launchOnce(t, { agent: "pinned", task: "look", model: "faux/main-model" }, [
				() => fauxAssistantMessage("looked"),
			]);
			expect(seen.childRequests).toBe(1);
			expect(text(subagentResult(t)?.content)).toMatch(/## pinned \(pinned, faux\/main-model:high\): done/);
			expect(
				historyLines(t)
					.filter((l) => l.kind === "launch-rule")
					.map((l) => [l.model, l.decision]),
			).toEqual([
				["faux-reviewer/reviewer-model:high", "blocked"],
				["faux/main-model:high", "allowed"],
			]);
		} finally {
			await t.dispose();
		}
	});

	it("matches the thinking suffix: a deny of *:high blocks the high launch and lets the low one run (deny wins over allow)", async () => {
		const t = await startSession({ userSettings: rules({ scout: { allow: ["faux/*"], deny: ["*:high"] } }, "block") });
		try {
			await launchOnce(t, { agent: "scout", task: "look", thinking: "high" });
			expect(text(subagentResult(t)?.content)).toContain(
				'- scout on faux/main-model:high breaks rules.roleModels.scout.deny "*:high"',
			);
			const seen = await launchOnce(t, { agent: "scout", task: "look", thinking: "low" }, [
				() => fauxAssistantMessage("looked"),
			]);
			expect(seen.childRequests).toBe(1);
			expect(text(subagentResult(t)?.content)).toMatch(/## scout \(scout, faux\/main-model:low\): done/);
		} finally {
			await t.dispose();
		}
	});

	it("refuses to launch while the settings have errors, since the rules in them cannot be read", async () => {
		const t = await startSession({
			userSettings: wd({ rules: { action: "block", roleModels: { worker: { deny: "faux/*" } } } }),
		});
		try {
			await launchOnce(t, { agent: "worker", task: "write" });
			const result = subagentResult(t);
			expect(result?.isError).toBe(true);
			expect(text(result?.content)).toMatch(
				/^Not launched: the watchdog settings have 1 error, so the launch rules in them cannot be checked\. First: .*settings\.json: subagents\.watchdog\.rules\.roleModels\.worker\.deny: must be a list of glob patterns/,
			);
			expect(t.main.state.callCount).toBe(2);
			expect(runFolders(t)).toEqual([]);
		} finally {
			await t.dispose();
		}
	});
});

describe("warn", () => {
	const concern =
		/A launch rule set by the user does not allow the model a child you launched runs on; the launch went on\.[\s\S]*Concern: Launch rule broken: worker on faux\/main-model:off \(rules\.roleModels\.worker\.deny "faux\/\*"\)[\s\S]*Importance: high · Severity: concern/;

	it("lets a single launch run and tells the parent's model, with reviews off", async () => {
		const t = await startSession({
			userSettings: rules({ worker: { deny: ["faux/*"], note: "prefer the big model" } }, "warn", {
				enabled: false,
				main: { model: "faux-reviewer/reviewer-model:high" },
			}),
		});
		try {
			const seen = await launchOnce(t, { agent: "worker", task: "say hi" }, [() => fauxAssistantMessage("hi")]);
			expect(seen.childRequests).toBe(1);
			const result = subagentResult(t);
			expect(result?.isError).toBeFalsy();
			expect(text(result?.content)).toMatch(/## worker \(worker, faux\/main-model\): done/);
			expect(childSessionFiles(t.agentDir)).toHaveLength(1);
			expect(seen.after).toMatch(concern);
			expect(seen.after).toContain(
				'worker started on faux/main-model:off; rules.roleModels.worker.deny "faux/*". Note: prefer the big model. rules.action is warn, so the launch went on.',
			);
			// reviews are off: no reviewer call
			expect(t.reviewer.state.callCount).toBe(0);
			const lines = historyLines(t);
			expect(lines.find((l) => l.kind === "launch-rule")).toMatchObject({
				decision: "warned",
				started: true,
				action: "warn",
			});
			expect(lines.find((l) => l.kind === "finding" && l.source === "rules")).toMatchObject({
				importance: "high",
				severity: "concern",
				fate: "sent to the agent",
			});
		} finally {
			await t.dispose();
		}
	});

	it("runs every step of a parallel launch and a chain, warning once for the steps that break the rule", async () => {
		const t = await startSession({ userSettings: rules({ worker: { deny: ["faux/*"] } }, "warn") });
		try {
			const firstUser = (ctx: Ctx) => text(ctx.messages.find((m) => m.role === "user")?.content);
			const parallel = await launchOnce(
				t,
				{
					tasks: [
						{ agent: "worker", task: "A" },
						{ agent: "scout", task: "B" },
						{ agent: "worker", task: "C" },
					],
				},
				[
					(ctx) => fauxAssistantMessage(`did ${firstUser(ctx)}`),
					(ctx) => fauxAssistantMessage(`did ${firstUser(ctx)}`),
					(ctx) => fauxAssistantMessage(`did ${firstUser(ctx)}`),
				],
			);
			expect(parallel.childRequests).toBe(3);
			expect(text(subagentResult(t)?.content)).toMatch(/3 children: 3 done/);
			expect(parallel.after).toMatch(concern);
			expect(parallel.after).toContain("worker#1, worker#3 started on faux/main-model:off");

			const chain = await launchOnce(
				t,
				{
					chain: [
						{ agent: "scout", task: "find" },
						{ agent: "worker", task: "fix {previous}" },
					],
				},
				[() => fauxAssistantMessage("found it"), () => fauxAssistantMessage("fixed")],
			);
			expect(chain.childRequests).toBe(2);
			expect(text(subagentResult(t)?.content)).toMatch(/scout#1 .*: done[\s\S]*worker#2 .*: done/);
			expect(chain.after).toContain("worker#2 started on faux/main-model:off");
			expect(
				historyLines(t)
					.filter((l) => l.kind === "launch-rule")
					.map((l) => [l.label, l.decision]),
			).toEqual([
				["worker#1", "warned"],
				["worker#3", "warned"],
				["worker#2", "warned"],
			]);
		} finally {
			await t.dispose();
		}
	});
});
