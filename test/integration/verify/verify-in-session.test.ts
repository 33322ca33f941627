// Stopped-subtree verification in a real Pi session: foreground children are real in-process
// Pi sessions (faux models) with their own session files in a real git repository; the
// verifier reads those files, and what it finds reaches the parent's model (its next request)
// or only the user.
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession, type TestSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";
import { type Ctx, allText, firstUser, text, toolUse } from "../review/review-helpers.ts";

const ON = wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model:high" }, lsp: { enabled: false } });
const REPO = {
	"package.json": `${JSON.stringify({ name: "t", private: true, scripts: { test: "node -e \"console.log('1 passed')\"" } })}\n`,
	"src/app.ts": "export const greet = (name: string) => 'hi';\n",
};
const FIXED = "export const greet = (name: string) => `hi ${name}`;\n";

const entries = (t: TestSession, type: string) =>
	t.session.sessionManager.getEntries().filter((e: any) => e.customType === type) as any[];
const verifications = (t: TestSession) => entries(t, "watchdog-verification");
/** The reviewer's replies: verification reviews get `verify`, every other call (boundary reviews) a clean answer. */
const reviewerScript = (t: TestSession, verify: Array<(ctx: Ctx) => ReturnType<typeof fauxAssistantMessage>>) => {
	const isVerify = (ctx: Ctx) => firstUser(ctx).startsWith("Verify the stopped children below");
	const seen: Ctx[] = [];
	t.reviewer.setResponses(
		Array.from({ length: 12 }, () => (ctx: unknown) => {
			if (!isVerify(ctx as Ctx)) return fauxAssistantMessage("Looks fine.");
			seen.push(ctx as Ctx);
			const next = verify.shift();
			return next ? next(ctx as Ctx) : fauxAssistantMessage("Done.");
		}),
	);
	return seen;
};

describe("stopped-subtree verification of foreground children", () => {
	it("tells the parent's model when a child claims passing tests it never ran, and the parent re-runs it", async () => {
		const repo = makeGitRepo(REPO);
		const t = await startSession({ cwd: repo, userSettings: ON });
		reviewerScript(t, []);
		let told = "";
		let after = "";
		t.main.setResponses([
			toolUse("subagent", { agent: "worker", task: "Fix greet so it uses the name" }),
			toolUse("bash", { command: "ls" }), // not a test run: the claim below is unbacked, not contradicted
			toolUse("write", { path: "src/app.ts", content: FIXED }),
			fauxAssistantMessage("Fixed greet. All tests pass."),
			// the parent's next request carries the verifier's message
			(ctx) => {
				told = allText(ctx as Ctx);
				return toolUse("subagent", {
					agent: "worker",
					task: "Fix greet so it uses the name\n\nRun `npm test` after your last edit and report its real output.",
				});
			},
			toolUse("bash", { command: "npm test" }),
			fauxAssistantMessage("Ran `npm test`: it passed."),
			(ctx) => {
				after = allText(ctx as Ctx);
				return fauxAssistantMessage("Done.");
			},
		]);
		try {
			await t.session.prompt("Have a worker fix greet");
			await t.session.waitForIdle();
			// named child, claim, evidence with tool-call indices and the session file, the next action
			expect(told).toMatch(/The watchdog verified the child agents of this orchestration/);
			expect(told).toMatch(
				/worker \(run \d{8}-\d{6}-[0-9a-f]{6}\): claim not backed by its own log: "All tests pass\."/,
			);
			expect(told).toMatch(/No test run in the session's tool log \(tool calls? [0-9–]+ in \S+\.jsonl\)/);
			expect(told).toContain("Files it changed: src/app.ts");
			expect(told).toMatch(
				/Re-run worker with this instruction \(a finished foreground child cannot be resumed\): subagent\(\{"agent":"worker","task":"Fix greet so it uses the name\\n\\nRun the tests after your last edit/,
			);
			// one message for the first stop; the re-run child is genuine: a note for the user only
			const [first, second] = verifications(t).map((e) => e.data);
			expect(first).toMatchObject({ outcome: "problems", verdicts: "worker unproven", via: "launch" });
			expect(second).toMatchObject({ outcome: "genuine", verdicts: "worker genuine, worker unproven" });
			expect(second.fingerprint).not.toBe(first.fingerprint);
			expect(verifications(t)).toHaveLength(2);
			expect(t.notices.map((n) => n.message).join("\n")).toMatch(
				/Watchdog verified 1 stopped child \[[0-9a-f]{12}\]: worker genuine \(changed nothing; 1 claim\(s\) checked\); 1 verified earlier, unchanged\./,
			);
			expect(after).not.toContain("Watchdog verified");
			expect(after.match(/The watchdog verified the child agents/g)).toHaveLength(1);
			// status and history
			const status = (await t.command("/subagents-watchdog status --all")).map((n) => n.message).join("\n");
			expect(status).toMatch(
				new RegExp(
					`Verification[\\s\\S]*2 children checked \\(seen through launch\\), fingerprint ${second.fingerprint.slice(0, 12)}[\\s\\S]*verdicts: worker genuine, worker unproven`,
				),
			);
			const history = (await t.command("/subagents-watchdog history")).map((n) => n.message).join("\n");
			expect(history.match(/verification +verify +/g)).toHaveLength(2);
			expect(history).toMatch(
				/verification +verify +1 child · worker unproven · \[[0-9a-f]{12}\] · via launch → problems/,
			);
		} finally {
			await t.dispose();
		}
	});

	it("keeps the fingerprint through the watchdog's own message: the same stop seen again after it is not reviewed", async () => {
		const repo = makeGitRepo(REPO);
		const t = await startSession({ cwd: repo, userSettings: ON });
		reviewerScript(t, []);
		let runId = "";
		t.main.setResponses([
			toolUse("subagent", { agent: "worker", task: "Fix greet" }),
			toolUse("write", { path: "src/app.ts", content: FIXED }),
			fauxAssistantMessage("Fixed greet. All tests pass."),
			(ctx) => {
				runId = /Run (\d{8}-\d{6}-[0-9a-f]{6})/.exec(allText(ctx as Ctx))?.[1] ?? "";
				// the verifier's message is in the context; the parent looks at the run again
				return toolUse("subagent", { action: "status", id: runId });
			},
			() => toolUse("subagent", { action: "wait", id: runId, timeoutMs: 1000 }),
			fauxAssistantMessage("I will ask for a re-run."),
		]);
		try {
			await t.session.prompt("Have a worker fix greet");
			await t.session.waitForIdle();
			expect(entries(t, "watchdog-finding").filter((e) => e.details?.findings?.[0]?.source === "verify")).toHaveLength(
				1,
			);
			expect(verifications(t)).toHaveLength(1);
			const status = (await t.command("/subagents-watchdog status --all")).map((n) => n.message).join("\n");
			expect(status).toMatch(new RegExp(`fingerprint ${verifications(t)[0].data.fingerprint.slice(0, 12)}`));
			expect(status).toMatch(/1 verification\(s\) this session, 2 stop\(s\) seen again and not reviewed/);
		} finally {
			await t.dispose();
		}
	});

	it("leaves genuine children alone with one note for the user, and asks no model", async () => {
		const repo = makeGitRepo(REPO);
		const t = await startSession({ cwd: repo, userSettings: ON });
		const verifyCalls = reviewerScript(t, []);
		let after = "";
		// side by side, the children's turns interleave: each answers by its own task and step
		const step = (ctx: Ctx) => ctx.messages.filter((m) => m.role === "toolResult").length;
		const reply = (ctx: Ctx) => {
			const task = firstUser(ctx);
			if (task === "Fix greet")
				return [
					toolUse("write", { path: "src/app.ts", content: FIXED }),
					toolUse("bash", { command: "npm test" }),
					fauxAssistantMessage("Fixed greet; `npm test` passed."),
				][step(ctx)];
			if (task === "Say where greet lives") return fauxAssistantMessage("greet lives in src/app.ts.");
			if (step(ctx) === 0)
				return toolUse("subagent", {
					tasks: [
						{ agent: "worker", task: "Fix greet" },
						{ agent: "scout", task: "Say where greet lives" },
					],
				});
			after = allText(ctx);
			return fauxAssistantMessage("Both done.");
		};
		t.main.setResponses(Array.from({ length: 8 }, () => (ctx: unknown) => reply(ctx as Ctx)));
		try {
			await t.session.prompt("Fix greet and tell me where it is");
			await t.session.waitForIdle();
			expect(verifications(t).map((e) => e.data.outcome)).toEqual(["genuine"]);
			expect(verifications(t)[0].data.verdicts).toMatch(
				/^(worker#1 genuine, scout#2 genuine|scout#2 genuine, worker#1 genuine)$/,
			);
			const notes = t.notices.filter((n) => n.message.startsWith("Watchdog verified"));
			expect(notes).toHaveLength(1);
			expect(notes[0].message).toMatch(/worker#1 genuine \(test `npm test` passed after the last edit \(call 1\)\)/);
			expect(notes[0].message).toMatch(/scout#2 genuine \(changed nothing; \d claim\(s\) checked\)/);
			expect(after).not.toMatch(/watchdog verified/i);
			expect(verifyCalls).toHaveLength(0);
		} finally {
			await t.dispose();
		}
	});

	it("asks the watchdog model about work the checker cannot decide, with read-only tools and no way to launch", async () => {
		const repo = makeGitRepo(REPO);
		const t = await startSession({ cwd: repo, userSettings: ON });
		let tools: string[] = [];
		let launchRefusal = "";
		const verifyCalls = reviewerScript(t, [
			(ctx) => {
				tools = (ctx as Ctx).messages.flatMap((m) =>
					((m as { toolsAdded?: Array<{ name: string }> }).toolsAdded ?? []).map((x) => x.name),
				);
				return toolUse("subagent", { agent: "worker", task: "do it again" });
			},
			(ctx) => {
				launchRefusal = text((ctx as Ctx).messages.at(-1)?.content);
				return toolUse("read", { path: "src/app.ts" });
			},
			() =>
				toolUse("watchdog_verdict", {
					child: "worker",
					verdict: "contradicted",
					claim: "Implemented greeting with the name",
					evidence: "src/app.ts line 1 still returns 'hi' and ignores name",
					instruction: "Make greet return `hi ${name}` in src/app.ts and run npm test.",
				}),
		]);
		let told = "";
		t.main.setResponses([
			toolUse("subagent", { agent: "worker", task: "Make greet use the name" }),
			toolUse("write", { path: "src/app.ts", content: "export const greet = (name: string) => 'hi' + '';\n" }),
			fauxAssistantMessage("Implemented greeting with the name."),
			(ctx) => {
				told = allText(ctx as Ctx);
				return fauxAssistantMessage("I will re-run it.");
			},
		]);
		try {
			await t.session.prompt("Have a worker make greet use the name");
			await t.session.waitForIdle();
			expect(verifyCalls.length).toBeGreaterThanOrEqual(3);
			expect(tools.sort()).toEqual(
				["find", "grep", "ls", "read", "watchdog_diff", "watchdog_verdict", "watchdog_warn"].sort(),
			);
			expect(launchRefusal).toMatch(/There is no tool "subagent"/);
			expect(told).toMatch(
				/worker \(run \S+\): claim contradicted by its own log: "Implemented greeting with the name"/,
			);
			expect(told).toMatch(
				/src\/app\.ts line 1 still returns 'hi' and ignores name \(the watchdog model's reading; session \S+\.jsonl\)/,
			);
			expect(told).toMatch(/Make greet return `hi \$\{name\}` in src\/app\.ts and run npm test\./);
			expect(verifications(t)[0].data).toMatchObject({
				outcome: "problems",
				verdicts: "worker contradicted",
				model: "faux-reviewer/reviewer-model",
			});
		} finally {
			await t.dispose();
		}
	});

	it("does not review a stopped state again after a resume, nor a part of it (a stop that only shrank)", async () => {
		const repo = makeGitRepo(REPO);
		const agentDir = tempDir("pi-watchdog-agent-");
		const sessions = tempDir("pi-watchdog-sessions-");
		const first = await startSession({
			cwd: repo,
			agentDir,
			userSettings: ON,
			sessionManager: SessionManager.create(repo, sessions),
		});
		reviewerScript(first, []);
		const runIds: string[] = [];
		first.main.setResponses([
			toolUse("subagent", { agent: "scout", task: "Look at src/app.ts" }),
			toolUse("bash", { command: "ls" }), // not a test run: the claim below is unbacked, not contradicted
			fauxAssistantMessage("greet is in src/app.ts. All tests pass."),
			(ctx) => {
				runIds.push(/Run (\d{8}-\d{6}-[0-9a-f]{6})/.exec(allText(ctx as Ctx))?.[1] ?? "");
				return toolUse("subagent", { agent: "scout", task: "Look at package.json" });
			},
			fauxAssistantMessage("package.json has a test script."),
			(ctx) => {
				runIds.push([...allText(ctx as Ctx).matchAll(/Run (\d{8}-\d{6}-[0-9a-f]{6})/g)].at(-1)?.[1] ?? "");
				return fauxAssistantMessage("Done.");
			},
		]);
		const file = first.session.sessionManager.getSessionFile() as string;
		try {
			await first.session.prompt("Have scouts look around");
			await first.session.waitForIdle();
		} finally {
			await first.dispose();
		}
		// two stops of one orchestration: {scout 1} (unproven "All tests pass"), then {scout 1, scout 2}
		const before = verifications(first);
		expect(before.map((e: any) => e.data.verdicts)).toEqual(["scout unproven", "scout genuine, scout unproven"]);
		const second = await startSession({
			cwd: repo,
			agentDir,
			userSettings: ON,
			sessionManager: SessionManager.open(file, sessions),
		});
		reviewerScript(second, []);
		second.main.setResponses([
			toolUse("subagent", { action: "wait", id: runIds[1], timeoutMs: 2000 }),
			toolUse("subagent", { action: "status", id: runIds[0] }),
			fauxAssistantMessage("Both ended."),
		]);
		try {
			await second.session.prompt("Are the runs done?");
			await second.session.waitForIdle();
			// the resumed session saw each run end again, each a part of the reviewed stop: no review
			expect(verifications(second)).toHaveLength(2);
			const status = (await second.command("/subagents-watchdog status --all")).map((n) => n.message).join("\n");
			expect(status).toMatch(new RegExp(`fingerprint ${before[1].data.fingerprint.slice(0, 12)}`));
			expect(status).toMatch(/2 verification\(s\) this session, 2 stop\(s\) seen again and not reviewed/);
		} finally {
			await second.dispose();
		}
	});
});
