// The pure judgement of launch rules: deny wins, allow lists admit only what they match, a
// role with only deny admits the rest, the thinking suffix counts, unusable patterns fail closed.
import { describe, expect, it } from "vitest";
import {
	blockedText,
	checkLaunch,
	judgeTarget,
	type LaunchRules,
	type LaunchTarget,
	ruleCount,
	warnFindings,
} from "../../../src/rules/index.ts";
import { LaunchRuleWatch } from "../../../src/rules/index.ts";

const target = (role: string, ref: string, thinking = "off", label = role): LaunchTarget => {
	const slash = ref.indexOf("/");
	return { label, role, provider: ref.slice(0, slash), id: ref.slice(slash + 1), thinking };
};
const rules = (roleModels: LaunchRules["roleModels"], action: LaunchRules["action"] = "warn"): LaunchRules => ({
	action,
	roleModels,
});

describe("judgeTarget", () => {
	it("has nothing to say about a role without a rule, or with only a note", () => {
		expect(judgeTarget(rules({ scout: { deny: ["*"] } }), target("worker", "openai/gpt-5"))).toBeUndefined();
		expect(judgeTarget(rules({ worker: { note: "be nice" } }), target("worker", "openai/gpt-5"))).toBeUndefined();
		// a role name that is a property of every object is no rule
		expect(judgeTarget(rules({}), target("constructor", "openai/gpt-5"))).toBeUndefined();
		expect(judgeTarget(rules({}), target("__proto__", "openai/gpt-5"))).toBeUndefined();
	});

	it("lets deny win over an allow that matches too", () => {
		const r = rules(
			{ worker: { allow: ["openai/*"], deny: ["openai/gpt-5:high"], note: "high is for the oracle" } },
			"block",
		);
		expect(judgeTarget(r, target("worker", "openai/gpt-5", "high"))).toEqual({
			label: "worker",
			role: "worker",
			model: "openai/gpt-5:high",
			decision: "blocked",
			action: "block",
			rule: 'rules.roleModels.worker.deny "openai/gpt-5:high"',
			note: "high is for the oracle",
		});
		expect(judgeTarget(r, target("worker", "openai/gpt-5", "low"))).toMatchObject({
			decision: "allowed",
			rule: 'rules.roleModels.worker.allow "openai/*"',
		});
	});

	it("admits everything a deny-only role does not deny", () => {
		const r = rules({ worker: { deny: ["anthropic/*"] } });
		expect(judgeTarget(r, target("worker", "openai/gpt-5", "high"))).toMatchObject({
			decision: "allowed",
			rule: "rules.roleModels.worker.deny (no pattern matches)",
		});
		expect(judgeTarget(r, target("worker", "anthropic/claude-opus-4-8"))).toMatchObject({
			decision: "warned",
			rule: 'rules.roleModels.worker.deny "anthropic/*"',
		});
	});

	it("admits only what an allow list matches; an empty list admits nothing", () => {
		const r = rules({ scout: { allow: ["openai-codex/gpt-5.6-luna:max", "local/*"] } }, "block");
		expect(judgeTarget(r, target("scout", "openai-codex/gpt-5.6-luna", "max"))).toMatchObject({ decision: "allowed" });
		expect(judgeTarget(r, target("scout", "local/small"))).toMatchObject({
			decision: "allowed",
			rule: 'rules.roleModels.scout.allow "local/*"',
		});
		expect(judgeTarget(r, target("scout", "openai-codex/gpt-5.6-luna", "high"))).toMatchObject({
			decision: "blocked",
			rule: 'rules.roleModels.scout.allow (none of "openai-codex/gpt-5.6-luna:max", "local/*" matches)',
		});
		expect(judgeTarget(rules({ scout: { allow: [] } }), target("scout", "local/small"))).toMatchObject({
			decision: "warned",
			rule: "rules.roleModels.scout.allow (empty: nothing is allowed)",
		});
	});

	it("matches the thinking suffix, the bare model, and thinking off as :off", () => {
		const r = rules({
			worker: { deny: ["*:xhigh"] },
			reviewer: { deny: ["faux/main-model"] },
			scout: { allow: ["*:off"] },
		});
		expect(judgeTarget(r, target("worker", "faux/main-model", "xhigh"))?.decision).toBe("warned");
		expect(judgeTarget(r, target("worker", "faux/main-model", "high"))?.decision).toBe("allowed");
		// a bare pattern denies the model at every thinking level
		expect(judgeTarget(r, target("reviewer", "faux/main-model", "high"))?.decision).toBe("warned");
		expect(judgeTarget(r, target("scout", "faux/main-model", "off"))?.decision).toBe("allowed");
		expect(judgeTarget(r, target("scout", "faux/main-model", "low"))?.decision).toBe("warned");
	});

	it("matches ids that hold / and : themselves, case-sensitively", () => {
		const r = rules({ worker: { deny: ["openrouter/anthropic/*", "Local/*"] } });
		expect(judgeTarget(r, target("worker", "openrouter/anthropic/claude-4:beta", "high"))?.decision).toBe("warned");
		expect(judgeTarget(r, target("worker", "local/small"))?.decision).toBe("allowed");
	});

	it("treats a pattern it cannot use as breaking the rule, never as permission", () => {
		const long = "x".repeat(300);
		expect(judgeTarget(rules({ worker: { deny: [long] } }, "block"), target("worker", "local/small"))).toMatchObject({
			decision: "blocked",
			rule: expect.stringMatching(/deny "x+" \(unusable: the pattern .* 300 characters long/),
		});
		expect(judgeTarget(rules({ worker: { allow: [""] } }), target("worker", "local/small"))).toMatchObject({
			decision: "warned",
			rule: expect.stringMatching(/allow "" \(unusable: a pattern may not be empty\)/),
		});
	});
});

describe("checkLaunch", () => {
	it("judges every child of a launch, and one blocked child blocks the launch", () => {
		const r = rules({ worker: { deny: ["local/big"], note: "big is slow" }, scout: { allow: ["local/*"] } }, "block");
		const verdict = checkLaunch(r, [
			target("scout", "local/small", "off", "scout#1"),
			target("worker", "local/big", "high", "worker#2"),
			target("reviewer", "local/big", "off", "reviewer#3"),
		]);
		expect(verdict.decisions.map((d) => [d.label, d.decision])).toEqual([
			["scout#1", "allowed"],
			["worker#2", "blocked"],
		]);
		expect(verdict.blocked).toBe(true);
		expect(blockedText(verdict)).toBe(
			[
				"Not launched: a launch rule blocks this child (rules.action is block), so nothing was started.",
				'- worker#2 (worker) on local/big:high breaks rules.roleModels.worker.deny "local/big". Note: big is slow',
				"Launch on a model the rule allows, or ask the user to change the rule.",
			].join("\n"),
		);
	});

	it("warns without blocking, one finding per role, model and rule", () => {
		const r = rules({ worker: { deny: ["local/big"], note: "big is slow" } });
		const verdict = checkLaunch(r, [
			target("worker", "local/big", "off", "worker#1"),
			target("worker", "local/big", "off", "worker#2"),
			target("worker", "local/small", "off", "worker#3"),
		]);
		expect(verdict.blocked).toBe(false);
		expect(verdict.broken.map((d) => d.label)).toEqual(["worker#1", "worker#2"]);
		const findings = warnFindings(verdict.broken);
		expect(findings).toHaveLength(1);
		expect(findings[0]).toMatchObject({
			importance: "high",
			severity: "concern",
			summary: 'Launch rule broken: worker on local/big:off (rules.roleModels.worker.deny "local/big")',
		});
		expect(findings[0].evidence).toBe(
			'worker#1, worker#2 started on local/big:off; rules.roleModels.worker.deny "local/big". Note: big is slow. rules.action is warn, so the launch went on.',
		);
	});

	it("counts the roles whose rule can decide something", () => {
		expect(ruleCount(rules({ a: { deny: ["*"] }, b: { allow: [] }, c: { note: "only a note" } }))).toBe(2);
	});
});

describe("LaunchRuleWatch", () => {
	it("shows the rule count and the last decision, a broken rule before a passing one", () => {
		const r = rules({ worker: { deny: ["local/big"] }, scout: { allow: ["local/*"] } }, "block");
		const watch = new LaunchRuleWatch();
		expect(watch.section(r).lines).toEqual([
			"2 roles with rules (action block): worker, scout",
			"last decision: none this session",
		]);
		expect(watch.brief(r)).toBe("Launch rules: 2 roles with rules, block");
		watch.remember(
			checkLaunch(r, [target("worker", "local/big"), target("scout", "local/small")]),
			"run-1",
			Date.parse("2026-01-01T10:20:30Z"),
		);
		expect(watch.lastDecision()).toMatchObject({ label: "worker", decision: "blocked", run: "run-1" });
		expect(watch.section(r).lines[1]).toBe(
			'last decision: 10:20:30 blocked worker on local/big:off (rules.roleModels.worker.deny "local/big")',
		);
		expect(watch.brief(r)).toBe(
			"Launch rules: 2 roles with rules, block · last: 10:20:30 blocked worker on local/big:off",
		);
		expect(watch.brief(rules({}))).toMatch(/^Launch rules: none · last:/);
	});
});
