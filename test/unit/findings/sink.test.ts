// The findings sink: every delivery rule once, the same for every source.
import { describe, expect, it } from "vitest";
import { type Finding, makeFinding } from "../../../src/findings/finding.ts";
import {
	FindingsSink,
	HANDSOFF,
	HANDSOFF_CHILDREN,
	MAX_CONTINUATIONS,
	type SinkEvent,
} from "../../../src/findings/sink.ts";

const loop = (severity: "concern" | "blocker", n = 1): Finding =>
	makeFinding(
		{
			summary: `Same bash call repeated ${n} times`,
			evidence: `Call: bash \`cat status.txt\`. Identical result each time, calls ${n}–${n + 4}`,
			recommendedAction: "Stop polling",
			importance: "high",
			severity,
			category: "loop-risk",
		},
		"loops",
	);
const review = (over: Partial<Finding> = {}): Finding =>
	makeFinding(
		{
			summary: "parser.ts drops the last token",
			evidence: "src/parser.ts:40 slices to length - 1",
			recommendedAction: "Keep the last token",
			importance: "high",
			severity: "blocker",
			category: "correctness",
			...over,
		} as never,
		"main",
	);

function sink(mode = "rpc") {
	const steered: unknown[] = [];
	const persisted: Array<{ type: string; data: unknown }> = [];
	const events: SinkEvent[] = [];
	const notices: string[] = [];
	const parent: Finding[] = [];
	const s = new FindingsSink({
		persist: (type, data) => persisted.push({ type, data }),
		steer: (m) => steered.push(m),
		present: (_ctx, text) => notices.push(text),
		record: (_ctx, e) => events.push(e),
		parent: { deliver: (f) => parent.push(...f) },
		role: "worker",
	});
	return { s, ctx: { mode, cwd: "/tmp" } as never, steered, persisted, events, notices, parent };
}

const SETTINGS = { severityThreshold: "concern" as const, stalemateRepeats: 3 };

describe("the findings sink", () => {
	it("does not steer a loop finding below the severity threshold, and records why", () => {
		const t = sink();
		t.s.duringRun(t.ctx, [loop("concern")], { ...SETTINGS, severityThreshold: "blocker" });
		expect(t.steered).toEqual([]);
		expect(t.persisted).toEqual([]);
		expect(t.events).toMatchObject([{ kind: "finding", source: "loops", fate: "below threshold" }]);
		t.s.duringRun(t.ctx, [loop("blocker", 9)], { ...SETTINGS, severityThreshold: "blocker" });
		expect(t.steered).toHaveLength(1);
		expect(t.events.at(-1)).toMatchObject({ fate: "sent to the agent" });
	});

	it("shows a low or medium finding once, whatever source raises it again", () => {
		const t = sink();
		const low = review({
			importance: "low",
			severity: "concern",
			summary: "Naming nit in util.ts",
			evidence: "util.ts `tmp2`",
			category: "other",
		});
		const entries = t.s.atSettle(t.ctx, [low], SETTINGS, true).entries;
		expect(entries.map((e) => e.type)).toEqual(["custom"]);
		t.s.duringRun(t.ctx, [{ ...low, id: "again", source: "cadence" }], SETTINGS);
		expect(t.persisted).toEqual([]);
		expect(t.events.map((e) => (e.kind === "finding" ? e.fate : e.kind))).toEqual(["shown to you", "duplicate"]);
	});

	it("policy handsoff holds back the evidence monitors' findings only: the review's and the loop detector's still reach the agent", () => {
		const t = sink();
		const handsoff = { ...SETTINGS, idle: { policy: "handsoff" } };
		const claim = makeFinding(
			{
				summary: 'Claim contradicted by the log: "All tests pass."',
				evidence: "npm test exited 1 (tool call 3)",
				recommendedAction: "Rerun the tests",
				importance: "high",
				severity: "blocker",
				category: "test-gap",
			},
			"claims",
		);
		const settled = t.s.atSettle(t.ctx, [claim, review()], handsoff, true);
		expect(settled.continueRun).toBe(true);
		expect(settled.sent.map((f) => f.source)).toEqual(["main"]);
		expect(settled.shown.map((f) => f.source)).toEqual(["claims"]);
		expect(settled.entries).toMatchObject([
			{ type: "custom_message", customType: "watchdog-finding", details: { findings: [{ source: "main" }] } },
			{
				type: "custom",
				customType: "watchdog-note",
				data: {
					heldBack: HANDSOFF,
					text: expect.stringMatching(
						/^Watchdog \(not sent to the agent: policy handsoff: claims and unfinished stops are shown to you, never sent to the agent\)/,
					),
				},
			},
		]);
		t.s.duringRun(t.ctx, [loop("concern")], handsoff);
		expect(t.steered).toHaveLength(1);
		expect(t.events.map((e) => (e.kind === "finding" ? `${e.source} ${e.fate}` : e.kind))).toEqual([
			"claims held back",
			"main sent to the agent",
			"loops sent to the agent",
		]);
		// keep: the same claim goes to the agent.
		expect(t.s.atSettle(t.ctx, [{ ...claim, id: "again" }], SETTINGS, true).sent).toHaveLength(1);
	});

	it("shares one continuation budget per user prompt between reviews and loop steers", () => {
		const t = sink();
		for (let i = 0; i < MAX_CONTINUATIONS - 1; i++) t.s.duringRun(t.ctx, [loop("concern", i * 10)], SETTINGS);
		expect(t.s.atSettle(t.ctx, [review()], SETTINGS, true).continueRun).toBe(true);
		// The budget is spent: the next review's high finding is held back for the user, the next loop steer too.
		const held = t.s.atSettle(
			t.ctx,
			[review({ summary: "lexer.ts mis-counts columns", evidence: "src/lexer.ts:12", category: "correctness" })],
			SETTINGS,
			true,
		);
		expect(held.continueRun).toBe(false);
		expect(held.entries).toMatchObject([
			{
				type: "custom",
				customType: "watchdog-note",
				data: { heldBack: `the watchdog already continued this prompt ${MAX_CONTINUATIONS} times` },
			},
		]);
		t.s.duringRun(t.ctx, [loop("blocker", 99)], SETTINGS);
		expect(t.steered).toHaveLength(MAX_CONTINUATIONS - 1);
		expect(t.events.filter((e) => e.kind === "finding" && e.fate === "held back")).toHaveLength(2);
		// A new prompt brings a new budget.
		t.s.userPrompt();
		t.s.duringRun(t.ctx, [loop("blocker", 200)], SETTINGS);
		expect(t.steered).toHaveLength(MAX_CONTINUATIONS);
	});

	it("stops sending a finding the boundary reviews keep raising, and prints findings in print mode", () => {
		const t = sink("print");
		const results = [1, 2, 3].map(() => t.s.atSettle(t.ctx, [review({ id: String(Math.random()) })], SETTINGS, true));
		expect(results.map((r) => r.continueRun)).toEqual([true, true, false]);
		expect(results[2]).toMatchObject({ stalemate: true, stalemateCount: 3 });
		expect(
			t.notices.some((n) =>
				/^Watchdog stalemate: "parser\.ts drops the last token" was raised by 3 reviews in a row/.test(n),
			),
		).toBe(true);
		expect(t.notices.filter((n) => n.startsWith("watchdog: blocker (")).map((n) => n.split("\n")[0])).toEqual([
			"watchdog: blocker (sent to the agent): parser.ts drops the last token",
			"watchdog: blocker (sent to the agent): parser.ts drops the last token",
			"watchdog: blocker (stalemate): parser.ts drops the last token",
		]);
		expect(t.events.map((e) => (e.kind === "finding" ? e.fate : e.kind))).toEqual([
			"sent to the agent",
			"sent to the agent",
			"stalemate",
		]);
	});

	it("passes what it shows up to the parent, with the child's role", () => {
		const t = sink();
		const low = review({ importance: "medium", severity: "concern" });
		t.s.atSettle(t.ctx, [review(), low], SETTINGS, true);
		expect(t.parent.map((f) => f.summary)).toEqual([review().summary, low.summary]);
	});

	it("dismisses a finding by its number: it is not raised again, stops counting towards stalemate, and history says so", () => {
		const t = sink();
		const low = review({
			importance: "low",
			severity: "concern",
			summary: "Naming nit in util.ts",
			evidence: "util.ts `tmp2`",
			category: "other",
		});
		t.s.atSettle(t.ctx, [review()], SETTINGS, true);
		t.s.atSettle(t.ctx, [low], SETTINGS, true);
		expect(t.s.recentFindings().map((r) => [r.n, r.finding.summary, r.fate])).toEqual([
			[1, "Naming nit in util.ts", "shown to you"],
			[2, "parser.ts drops the last token", "sent to the agent"],
		]);
		expect(t.s.dismiss(t.ctx, 2).map((f) => f.summary)).toEqual(["parser.ts drops the last token"]);
		expect(t.persisted.at(-1)).toMatchObject({ type: "watchdog-dismissed" });
		expect(t.events.at(-1)).toMatchObject({ kind: "finding", fate: "dismissed" });
		// Raised again: not sent, and no stalemate however often.
		for (let i = 0; i < 4; i++) {
			const again = t.s.atSettle(t.ctx, [review({ id: `again-${i}` })], SETTINGS, true);
			expect(again).toMatchObject({ continueRun: false, stalemate: false, entries: [] });
		}
		expect(t.s.dismiss(t.ctx, "all").map((f) => f.summary)).toEqual(["Naming nit in util.ts"]);
		expect(t.s.dismiss(t.ctx, 7)).toEqual([]);
		// Survives a restart of the extension: the dismissal is read back from the session.
		const fresh = sink();
		fresh.s.restore(t.persisted.map((p) => ({ type: "custom", customType: p.type, data: p.data })));
		expect(fresh.s.atSettle(fresh.ctx, [review({ id: "after-restart" })], SETTINGS, true).continueRun).toBe(false);
	});

	it("grants a continuation that carries no finding (a rotation's resume note) from the same budget and policy", () => {
		const t = sink();
		const note = { customType: "watchdog-resume", content: "carry on", details: { rotation: 1 } };
		expect(t.s.continueWith(note, { idle: { policy: "handsoff" } })).toEqual({
			blocked: "policy handsoff: the watchdog detects and shows, and never delivers to the agent",
		});
		expect(t.s.continuationsLeft()).toBe(MAX_CONTINUATIONS);
		expect(t.s.continueWith(note, {})).toEqual({
			entry: {
				type: "custom_message",
				customType: "watchdog-resume",
				content: "carry on",
				display: true,
				details: { rotation: 1 },
			},
		});
		for (let i = 0; i < MAX_CONTINUATIONS - 1; i++) t.s.duringRun(t.ctx, [loop("concern", i * 10)], SETTINGS);
		expect(t.s.continuationsLeft()).toBe(0);
		expect(t.s.continueWith(note, {})).toEqual({
			blocked: `the watchdog already continued this prompt ${MAX_CONTINUATIONS} times`,
		});
		// A finding after that is held back too: the note used the budget findings share.
		expect(t.s.atSettle(t.ctx, [review()], SETTINGS, true).continueRun).toBe(false);
	});
});

describe("the reviewer's question", () => {
	const q = {
		question: "Is lane B on hold on purpose?",
		evidence: "The scout reports lane B idle since the last prompt",
	};

	it("goes to the agent with the settle's findings as one continuation from the shared budget", () => {
		const t = sink();
		const d = t.s.atSettle(t.ctx, [review()], SETTINGS, true, q);
		expect(d.continueRun).toBe(true);
		expect(d.question).toEqual({ delivered: true });
		expect(d.entries.map((e) => (e.type === "custom_message" ? e.customType : e.type))).toEqual([
			"watchdog-finding",
			"watchdog-question",
		]);
		expect(t.s.continuationsLeft()).toBe(MAX_CONTINUATIONS - 1);
		expect(t.events.find((e) => e.kind === "question")).toMatchObject({
			source: "worker",
			outcome: "delivered",
			question: q.question,
		});
	});

	it("is kept for the user, and says why, when the budget is spent, the policy is handsoff, or a finding stalemated", () => {
		const spent = sink();
		for (let i = 0; i < MAX_CONTINUATIONS; i++)
			spent.s.atSettle(
				spent.ctx,
				[
					review({
						summary: `distinct ${i} ${"ab".repeat(i + 1)}`,
						evidence: `file${i}.ts ${"cd".repeat(i + 1)}`,
						category: i % 2 ? "correctness" : "test-gap",
					}),
				],
				{ ...SETTINGS, stalemateRepeats: 20 },
				true,
			);
		const held = spent.s.atSettle(spent.ctx, [], SETTINGS, true, q);
		expect(held).toMatchObject({
			continueRun: false,
			question: { delivered: false, reason: expect.stringMatching(/already continued this prompt 5 times/) },
		});
		expect(held.entries).toMatchObject([
			{ type: "custom", customType: "watchdog-question-note", data: { question: q.question } },
		]);

		const handsOff = sink();
		expect(
			handsOff.s.atSettle(handsOff.ctx, [], { ...SETTINGS, idle: { policy: "handsoff" } }, true, q).question,
		).toMatchObject({ delivered: false, reason: expect.stringMatching(/handsoff/) });

		const stale = sink();
		for (let i = 0; i < 3; i++) stale.s.atSettle(stale.ctx, [review()], SETTINGS, true);
		expect(stale.s.stalemated()).toBe(true);
		expect(stale.s.atSettle(stale.ctx, [], SETTINGS, true, q).question).toMatchObject({
			delivered: false,
			reason: "a finding is in stalemate",
		});
		expect(stale.events.at(-1)).toMatchObject({
			kind: "question",
			outcome: "suppressed",
			reason: "a finding is in stalemate",
		});
		stale.s.userPrompt();
		expect(stale.s.stalemated()).toBe(false);
	});
});

describe("what children bring back (fromChildren)", () => {
	function parentSink() {
		const sent: Array<{ how: string; customType: string; content: string }> = [];
		const persisted: Array<{ type: string; data: any }> = [];
		const s = new FindingsSink({
			persist: (type, data) => persisted.push({ type, data }),
			steer: (m) => sent.push({ how: "steer", ...m }),
			wake: (m) => sent.push({ how: "wake", ...m }),
			post: (m) => sent.push({ how: "post", ...m }),
			present: () => {},
			role: "main",
		});
		return { s, ctx: { mode: "rpc", cwd: "/tmp" } as never, sent, persisted };
	}
	const childHigh = (n = 1): Finding => ({
		...review({ summary: `Child finding number ${n} about widget${n}.ts`, evidence: `src/widget${n}.ts:${n}` }),
		source: "worker",
		child: "worker",
	});
	const notice = { customType: "watchdog-subagent", content: "Background run r ended (done)." };

	it("adds the notice without a turn when idle; a high finding the sink sends is what starts one", () => {
		const t = parentSink();
		t.s.fromChildren(t.ctx, { notice, findings: [] }, SETTINGS, true);
		expect(t.sent.map((m) => m.how)).toEqual(["post"]);
		t.s.fromChildren(t.ctx, { notice, findings: [childHigh()] }, SETTINGS, true);
		expect(t.sent.map((m) => `${m.how} ${m.customType}`)).toEqual([
			"post watchdog-subagent",
			"post watchdog-subagent",
			"wake watchdog-finding",
		]);
		expect(t.sent[2].content).toMatch(
			/^The watchdog of a child agent you launched \(worker\) raised this while the child worked/,
		);
		expect(t.sent[2].content).toContain("Source: child:worker");
		// while the agent works, both are steered in
		t.s.fromChildren(t.ctx, { notice, findings: [childHigh(2)] }, SETTINGS, false);
		expect(t.sent.slice(3).map((m) => m.how)).toEqual(["steer", "steer"]);
	});

	it("starts no turn once the prompt's budget is spent, and none under policy handsoff: the finding is shown, saying why", () => {
		const t = parentSink();
		for (let i = 0; i < MAX_CONTINUATIONS; i++) t.s.duringRun(t.ctx, [loop("concern", i * 10)], SETTINGS);
		t.s.fromChildren(t.ctx, { notice, findings: [childHigh()] }, SETTINGS, true);
		expect(t.sent.filter((m) => m.how === "wake")).toEqual([]);
		expect(t.persisted.at(-1)?.data).toMatchObject({
			finding: { child: "worker" },
			heldBack: `the watchdog already continued this prompt ${MAX_CONTINUATIONS} times`,
		});
		t.s.userPrompt();
		const handsoff = { ...SETTINGS, idle: { policy: "handsoff" } };
		t.s.fromChildren(t.ctx, { notice, findings: [childHigh(3)] }, handsoff, true);
		expect(t.sent.filter((m) => m.how === "wake")).toEqual([]);
		expect(t.persisted.at(-1)?.data).toMatchObject({ heldBack: HANDSOFF_CHILDREN });
	});

	it("policy handsoff also holds back a verification's and a launch rule's findings; the review's still go", () => {
		const t = parentSink();
		const handsoff = { ...SETTINGS, idle: { policy: "handsoff" } };
		const verify = {
			...review({ summary: "worker: claim not backed by its own log", evidence: "no test run (tool call 0)" }),
			source: "verify",
		};
		const rule = {
			...review({
				summary: "Launch rule broken: worker on p/m",
				evidence: "rules.roleModels.worker.deny",
				severity: "concern",
			}),
			source: "rules",
		};
		const plan = t.s.duringRun(t.ctx, [verify, rule, review()], handsoff);
		expect(plan?.toModel.map((f) => f.source)).toEqual(["main"]);
		expect(plan?.decisions.map((d) => `${d.finding.source} ${d.fate}`)).toEqual([
			"verify held back",
			"rules held back",
			"main sent to the agent",
		]);
		expect(t.persisted.map((p) => p.data.heldBack)).toEqual([HANDSOFF_CHILDREN, HANDSOFF_CHILDREN]);
	});
});
