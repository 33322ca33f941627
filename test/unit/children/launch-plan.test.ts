// The pure parts of a launch: the plan from the tool's arguments, the child's model, acceptance.
import { describe, expect, it } from "vitest";
import { makeFinding } from "../../../src/findings/index.ts";
import { resolveChildModel } from "../../../src/children/child-model.ts";
import { chainTask, planLaunch } from "../../../src/children/launch-plan.ts";
import { acceptance, type ChildResult, childText } from "../../../src/children/launch-result.ts";
import { labelsFor } from "../../../src/children/launcher.ts";

describe("planLaunch", () => {
	it("reads one child, parallel tasks and a chain, with top-level options as defaults", () => {
		expect(planLaunch({ agent: "scout", task: "look" })).toEqual({
			mode: "single",
			steps: [{ agent: "scout", task: "look" }],
			async: false,
		});
		const p = planLaunch({
			tasks: [
				{ agent: "a", task: "x" },
				{ agent: "b", task: "y", model: "p/m" },
			],
			model: "p/top",
			timeoutMs: 5000,
			async: true,
		});
		expect(p).toEqual({
			mode: "parallel",
			steps: [
				{ agent: "a", task: "x", model: "p/top", timeoutMs: 5000 },
				{ agent: "b", task: "y", model: "p/m", timeoutMs: 5000 },
			],
			async: true,
		});
		expect(
			planLaunch({
				chain: [
					{ agent: "a", task: "x" },
					{ agent: "b", task: "use {previous}" },
				],
			}),
		).toMatchObject({ mode: "chain" });
	});

	it("says what is wrong with a launch that is not one", () => {
		expect(planLaunch({})).toEqual({ error: expect.stringMatching(/nothing to launch/) });
		expect(planLaunch({ agent: "a", task: "x", tasks: [] })).toEqual({ error: expect.stringMatching(/only one of/) });
		expect(planLaunch({ tasks: [] })).toEqual({ error: expect.stringMatching(/tasks is empty/) });
		expect(planLaunch({ agent: "a", task: "  " })).toEqual({ error: expect.stringMatching(/task is empty/) });
		expect(planLaunch({ chain: [{ agent: "a", task: "from {previous}" }] })).toEqual({
			error: expect.stringMatching(/step 1: \{previous\} has no previous step/),
		});
		expect(planLaunch({ tasks: Array.from({ length: 33 }, () => ({ agent: "a", task: "x" })) })).toEqual({
			error: expect.stringMatching(/at most 32/),
		});
	});

	it("refuses a deadline past the most a timer can hold, saying the maximum", () => {
		// 3,000,000,000 ms overflows Node's timers (2^31-1 ms), which then fire at once.
		expect(planLaunch({ agent: "a", task: "x", timeoutMs: 3_000_000_000 })).toEqual({
			error: expect.stringMatching(
				/timeoutMs 3000000000 is more than the most a child may run, 86400000 ms \(24 hours\)/,
			),
		});
		expect(
			planLaunch({
				tasks: [
					{ agent: "a", task: "x" },
					{ agent: "b", task: "y", timeoutMs: 2 ** 31 },
				],
			}),
		).toEqual({ error: expect.stringMatching(/^step 2: timeoutMs 2147483648 is more than/) });
		expect(planLaunch({ agent: "a", task: "x", timeoutMs: 86_400_000 })).toMatchObject({
			steps: [{ timeoutMs: 86_400_000 }],
		});
	});

	it("replaces every {previous} with the previous answer", () => {
		expect(chainTask("fix {previous}; then recheck {previous}", "A")).toBe("fix A; then recheck A");
	});

	it("labels several children of one agent apart", () => {
		expect(labelsFor(["worker"])).toEqual(["worker"]);
		expect(labelsFor(["worker", "worker", "scout"])).toEqual(["worker#1", "worker#2", "scout#3"]);
	});
});

describe("resolveChildModel", () => {
	const models = [
		{ provider: "p", id: "big" },
		{ provider: "q", id: "small" },
	] as never[];
	const lookup = {
		find: (provider: string, id: string) =>
			models.find((m: { provider: string; id: string }) => m.provider === provider && m.id === id),
		getAvailable: () => models,
	};
	const parent = { model: models[1], thinking: "medium" };

	it("takes the launch's model, then the agent's, else inherits the parent's, with thinking in that order", () => {
		expect(resolveChildModel(lookup, { launchModel: "p/big:high", agentModel: "q/small" }, parent)).toMatchObject({
			ref: "p/big:high",
		});
		expect(resolveChildModel(lookup, { agentModel: "p/big", agentThinking: "low" }, parent)).toMatchObject({
			ref: "p/big:low",
		});
		expect(resolveChildModel(lookup, { agentModel: "inherit" }, parent)).toMatchObject({ ref: "q/small:medium" });
		expect(resolveChildModel(lookup, { agentModel: "inherit", launchThinking: "off" }, parent)).toMatchObject({
			ref: "q/small",
		});
	});

	it("fails a model Pi does not know, with the ones it does", () => {
		expect(resolveChildModel(lookup, { launchModel: "z/none" }, parent)).toEqual({
			error: "model z/none is not known to Pi. Available: p/big, q/small",
		});
		expect(resolveChildModel(lookup, { launchModel: "nonsense" }, parent)).toEqual({
			error: 'model "nonsense" (no provider given) is not known to Pi. Available: p/big, q/small',
		});
		expect(resolveChildModel(lookup, { launchModel: "p/ has space" }, parent)).toEqual({
			error: expect.stringMatching(/not a model reference/),
		});
	});

	it("finds a bare model id (pi-subagents' form): the parent's provider's, else the only one, else says which", () => {
		expect(resolveChildModel(lookup, { agentModel: "big:high" }, parent)).toMatchObject({ ref: "p/big:high" });
		const twice = [...models, { provider: "r", id: "big" }] as never[];
		const both = {
			find: (provider: string, id: string) =>
				twice.find((m: { provider: string; id: string }) => m.provider === provider && m.id === id),
			getAvailable: () => twice,
		};
		expect(resolveChildModel(both, { agentModel: "big" }, parent)).toEqual({
			error: 'model "big" is offered by p, r; write provider/big to say which',
		});
		expect(resolveChildModel(both, { agentModel: "big" }, { model: twice[2], thinking: "off" })).toMatchObject({
			ref: "r/big",
		});
	});
});

describe("acceptance", () => {
	const base: ChildResult = {
		status: "done",
		answer: "ok",
		toolCalls: 1,
		tokens: 10,
		cost: 0,
		notices: [],
		label: "w",
		agent: "worker",
		task: "t",
		model: "p/m",
		cwd: "/x",
		findings: [],
		blockers: { blockers: [], stalemate: false },
	};
	const blocker = makeFinding(
		{
			summary: "Tests were never run",
			evidence: "no bash call",
			recommendedAction: "run them",
			importance: "low",
			severity: "blocker",
		},
		"worker",
	);
	const concern = makeFinding(
		{ summary: "A nit", evidence: "e", recommendedAction: "r", importance: "medium", severity: "concern" },
		"worker",
	);

	it("fails watchdog-blocker on an open blocker whatever its importance, and says so", () => {
		expect(acceptance(base)).toEqual({ accepted: true, failedChecks: [] });
		const r = { ...base, findings: [blocker, concern], blockers: { blockers: [blocker], stalemate: true } };
		expect(acceptance(r)).toEqual({
			accepted: false,
			failedChecks: ["watchdog-blocker: Tests were never run (stalemate)"],
		});
		// neither finding is high: the parent's model sees neither, only the failed check
		const text = childText(r);
		expect(text).toContain("Failed checks: watchdog-blocker: Tests were never run (stalemate)");
		expect(text).not.toContain("A nit");
		expect(text).not.toContain("Watchdog findings");
	});

	it("fails a child that did not finish or whose changes conflicted", () => {
		expect(acceptance({ ...base, status: "timed out" }).failedChecks).toEqual(["status: timed out"]);
		expect(
			acceptance({ ...base, landed: { status: "conflict", paths: [], conflicts: ["a.ts"], patchPath: "/p" } })
				.failedChecks,
		).toEqual(["merge conflict: a.ts"]);
	});
});
