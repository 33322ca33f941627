// What children say to the parent's model goes through the parent's findings sink, in a real
// Pi session (faux models, real child sessions, a real git repository): a child's findings and
// a verification's message get the parent's threshold, dedupe, budget and policy.
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession, type TestSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { type Ctx, allText, firstUser, text, toolUse, warn } from "../review/review-helpers.ts";

const REPO = { "src/app.ts": "export const greet = (name: string) => `hi ${name}`;\n" };
const HIGH = "The new greet() drops the name argument";
const LOW = "A low-importance nit about naming";
const entries = (t: TestSession, type: string) =>
	t.session.sessionManager.getEntries().filter((e: any) => e.customType === type) as any[];
const toolResultText = (t: TestSession) =>
	(t.session.messages as Array<{ role: string; toolName?: string; content: unknown }>)
		.filter((m) => m.role === "toolResult" && m.toolName === "subagent")
		.map((m) => text(m.content))
		.join("\n");

/** The parent launches a worker; the child's first review raises a high and a low finding, its second is clean. */
async function childWithFindings(policy: "keep" | "handsoff") {
	const settings = wd({
		enabled: true,
		main: { model: "faux-reviewer/reviewer-model:high" },
		lsp: { enabled: false },
		idle: { policy },
		children: { enabled: true },
	});
	const t = await startSession({ cwd: makeGitRepo(REPO), userSettings: settings });
	const parentSeen: string[] = [];
	t.main.setResponses([
		toolUse("subagent", { agent: "worker", task: "Shorten greet" }),
		toolUse("write", { path: "src/app.ts", content: "export const greet = (name: string) => 'hi';\n" }),
		fauxAssistantMessage("Shortened greet."),
		toolUse("write", { path: "src/app.ts", content: "export const greet = (n: string) => `hi ${n}`;\n" }),
		fauxAssistantMessage("Fixed: greet uses the name again."),
		...Array.from({ length: 3 }, () => (ctx: unknown) => {
			parentSeen.push(allText(ctx as Ctx));
			return fauxAssistantMessage("Done.");
		}),
	]);
	t.reviewer.setResponses([
		warn(),
		warn({
			summary: LOW,
			evidence: "src/app.ts: the parameter could be called who",
			recommendedAction: "Rename it if you like",
			importance: "low",
			severity: "concern",
			category: "other",
		}),
		fauxAssistantMessage("Reported."),
		fauxAssistantMessage("Looks right now."),
		...Array.from({ length: 3 }, () => fauxAssistantMessage("Fine.")),
	]);
	await t.session.prompt("Have a worker shorten greet");
	await t.session.waitForIdle();
	return { t, parentSeen };
}

describe("a child's findings reach the parent through its sink", () => {
	it("with the parent on handsoff: the child's high finding is shown to the user and never reaches the parent's model", async () => {
		const { t, parentSeen } = await childWithFindings("handsoff");
		try {
			expect(toolResultText(t)).toMatch(/## worker \(worker, faux\/main-model\): done/);
			expect(parentSeen.length).toBeGreaterThan(0);
			for (const seen of parentSeen) {
				expect(seen).not.toContain(HIGH);
				expect(seen).not.toContain(LOW);
			}
			expect(entries(t, "watchdog-finding")).toEqual([]);
			const notes = entries(t, "watchdog-note").map((e) => e.data);
			const high = notes.find((n) => n.finding.summary === HIGH);
			expect(high).toMatchObject({
				finding: { importance: "high", child: "worker" },
				heldBack: expect.stringMatching(/^policy handsoff/),
			});
			expect(high.text).toMatch(/^Watchdog \(not sent to the agent: policy handsoff/);
			expect(notes.some((n) => n.finding.summary === LOW && !n.heldBack)).toBe(true);
			const history = (await t.command("/subagents-watchdog history")).map((n) => n.message).join("\n");
			expect(history).toMatch(
				/finding +worker +high\/blocker · correctness · The new greet\(\) drops the name argument → held back \(from worker\)\n/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("on keep: the high finding is a watchdog message after the tool's answer, the low one a note for the user", async () => {
		const { t, parentSeen } = await childWithFindings("keep");
		try {
			const result = toolResultText(t);
			expect(result).toContain("Fixed: greet uses the name again.");
			// the tool's answer is the child's result; the finding is the sink's message
			expect(result).not.toContain(HIGH);
			const sent = entries(t, "watchdog-finding");
			expect(sent).toHaveLength(1);
			expect(sent[0].content).toMatch(
				/^The watchdog of a child agent you launched \(worker\) raised this while the child worked/,
			);
			expect(sent[0].details.findings).toMatchObject([{ summary: HIGH, child: "worker" }]);
			expect(parentSeen[0]).toContain(HIGH);
			expect(parentSeen[0]).not.toContain(LOW);
			expect(entries(t, "watchdog-note").map((e) => e.data.finding.summary)).toContain(LOW);
		} finally {
			await t.dispose();
		}
	});
});

describe("a verification's message goes through the parent's sink", () => {
	it("with the parent on handsoff: an unproven child is shown to the user and never reaches the parent's model", async () => {
		const repo = makeGitRepo({
			"package.json": `${JSON.stringify({ name: "t", private: true, scripts: { test: "node -e \"console.log('1 passed')\"" } })}\n`,
			"src/app.ts": "export const greet = (name: string) => 'hi';\n",
		});
		const t = await startSession({
			cwd: repo,
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model:high" },
				lsp: { enabled: false },
				idle: { policy: "handsoff" },
			}),
		});
		t.reviewer.setResponses(
			Array.from(
				{ length: 6 },
				() => (ctx: unknown) =>
					fauxAssistantMessage(firstUser(ctx as Ctx).startsWith("Verify") ? "Done." : "Looks fine."),
			),
		);
		const parentSeen: string[] = [];
		t.main.setResponses([
			toolUse("subagent", { agent: "worker", task: "Fix greet so it uses the name" }),
			toolUse("write", { path: "src/app.ts", content: "export const greet = (name: string) => `hi ${name}`;\n" }),
			fauxAssistantMessage("Fixed greet. All tests pass."),
			...Array.from({ length: 3 }, () => (ctx: unknown) => {
				parentSeen.push(allText(ctx as Ctx));
				return fauxAssistantMessage("Done.");
			}),
		]);
		try {
			await t.session.prompt("Have a worker fix greet");
			await t.session.waitForIdle();
			expect(entries(t, "watchdog-verification").map((e) => e.data.outcome)).toEqual(["problems"]);
			expect(parentSeen.length).toBeGreaterThan(0);
			for (const seen of parentSeen)
				expect(seen).not.toMatch(/The watchdog verified the child agents|claim not backed/);
			expect(entries(t, "watchdog-finding")).toEqual([]);
			const held = entries(t, "watchdog-note")
				.map((e) => e.data)
				.filter((n) => n.finding.source === "verify");
			expect(held).toHaveLength(1);
			expect(held[0].heldBack).toMatch(/^policy handsoff/);
			expect(held[0].finding.summary).toMatch(/claim not backed by its own log: "All tests pass\."/);
		} finally {
			await t.dispose();
		}
	});
});
