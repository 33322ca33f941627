import { describe, expect, it } from "vitest";
import type { SessionModelInfo } from "../../../src/models/reviewer-model.ts";
import { loweredOversight } from "../../../src/settings/oversight.ts";
import { DEFAULT_SETTINGS, type WatchdogSettings } from "../../../src/settings/defaults.ts";

const session: SessionModelInfo = { model: { provider: "anthropic", id: "claude-sonnet-4-6" }, thinking: "high" };

/** Defaults, switched on, reviewed by a GPT model at high: a well-watched starting point. */
function watched(extra: (s: WatchdogSettings) => void = () => {}): WatchdogSettings {
	const s = structuredClone(DEFAULT_SETTINGS);
	s.enabled = true;
	s.main = { model: "openai/gpt-5.5", thinking: "high" };
	extra(s);
	return s;
}

const judge = (before: WatchdogSettings, changes: Record<string, unknown>, who: SessionModelInfo = session) =>
	loweredOversight(before, Object.entries(changes), who);

describe("what lowers oversight", () => {
	it("turning a watchdog off, but not turning it on or off again", () => {
		expect(judge(watched(), { enabled: false })).toEqual(["turns the main watchdog off"]);
		expect(
			judge(
				watched((s) => (s.enabled = false)),
				{ enabled: false },
			),
		).toEqual([]);
		expect(
			judge(
				watched((s) => (s.enabled = false)),
				{ enabled: true },
			),
		).toEqual([]);
		expect(
			judge(
				watched((s) => (s.children.enabled = true)),
				{ "children.enabled": false },
			),
		).toEqual(["turns the child watchdogs off"]);
	});

	it("watching children only (main.enabled: false under enabled) stops the main review", () => {
		expect(judge(watched(), { "main.enabled": false })).toEqual([
			"stops reviewing the main session (main.enabled: false)",
		]);
		expect(
			judge(
				watched((s) => (s.main.enabled = false)),
				{ "main.enabled": false },
			),
		).toEqual([]);
		expect(
			judge(
				watched((s) => (s.main.enabled = false)),
				{ "main.enabled": true },
			),
		).toEqual([]);
	});

	it("a role's switch counts against what the role had, its own or the children's", () => {
		const childrenOn = watched((s) => (s.children.enabled = true));
		expect(judge(childrenOn, { "children.overrides.worker.enabled": false })).toEqual([
			'turns the watchdog of the "worker" role off',
		]);
		expect(judge(watched(), { "children.overrides.worker.enabled": false })).toEqual([]);
		expect(judge(childrenOn, { "children.overrides.worker.enabled": true })).toEqual([]);
	});

	it("a reviewer of the session model's family, or the session model itself", () => {
		expect(judge(watched(), { "main.model": "acme/claude-opus-4-8", "main.thinking": "high" })).toEqual([
			"the main watchdog's reviewer acme/claude-opus-4-8 is of the same family (anthropic) as the session's model anthropic/claude-sonnet-4-6, so it is no independent view",
		]);
		expect(judge(watched(), { "main.model": "anthropic/claude-sonnet-4-6", "main.thinking": "high" })).toEqual([
			"the main watchdog's reviewer would be the session's own model (anthropic/claude-sonnet-4-6): it would review its own work",
		]);
	});

	it('"inherit" when it changes what runs: in the session layer, or removed from a file', () => {
		expect(judge(watched(), { "main.model": "inherit", "main.thinking": "inherit" })).toEqual([
			`the main watchdog's reviewer would be the session's own model (anthropic/claude-sonnet-4-6), through "inherit": it would review its own work`,
		]);
		expect(judge(watched(), { "main.model": undefined, "main.thinking": undefined })).toHaveLength(1);
		// Already inheriting: nothing changes.
		expect(
			judge(
				watched((s) => (s.main = { model: "inherit", thinking: "inherit" })),
				{ "main.model": "inherit", "main.thinking": "inherit" },
			),
		).toEqual([]);
	});

	it("a move within the family is no loss when the reviewer was the session model already", () => {
		const inheriting = watched((s) => (s.main = { model: "inherit", thinking: "inherit" }));
		expect(judge(inheriting, { "main.model": "anthropic/claude-opus-4-8", "main.thinking": "high" })).toEqual([]);
		expect(judge(inheriting, { "main.model": "google/gemini-3-pro", "main.thinking": "xhigh" })).toEqual([]);
	});

	it("less thinking, and thinking that would follow the session's level", () => {
		expect(judge(watched(), { "main.thinking": "low" })).toEqual([
			"the main watchdog's reviewer thinking drops from high to low",
		]);
		expect(judge(watched(), { "main.model": "google/gemini-3-pro", "main.thinking": "off" })).toEqual([
			"the main watchdog's reviewer thinking drops from high to off",
		]);
		expect(judge(watched(), { "main.thinking": "inherit" }, { ...session, thinking: "minimal" })).toEqual([
			"the main watchdog's reviewer thinking would follow the session's level (now minimal) instead of high",
		]);
		expect(judge(watched(), { "main.thinking": "inherit" })).toEqual([]); // the session runs at high too
		expect(judge(watched(), { "main.thinking": "xhigh" })).toEqual([]);
	});

	it("a stronger model of another family goes through", () => {
		expect(
			judge(
				watched((s) => (s.main = { model: "openai/gpt-5.5-mini", thinking: "medium" })),
				{ "main.model": "google/gemini-3-pro", "main.thinking": "high" },
			),
		).toEqual([]);
	});

	it("children and roles are judged like the main watchdog", () => {
		const childrenGpt = watched((s) => (s.children = { ...s.children, model: "openai/gpt-5.5", thinking: "high" }));
		expect(judge(childrenGpt, { "children.model": "anthropic/claude-haiku-4-5", "children.thinking": "high" })).toEqual(
			[
				"the child watchdogs' reviewer anthropic/claude-haiku-4-5 is of the same family (anthropic) as the session's model anthropic/claude-sonnet-4-6, so it is no independent view",
			],
		);
		// Children inherit by default (the session's model at high), so only the thinking is lost here.
		expect(judge(watched(), { "children.model": "anthropic/claude-haiku-4-5", "children.thinking": "off" })).toEqual([
			"the child watchdogs' reviewer thinking drops from high to off",
		]);
		expect(
			judge(childrenGpt, {
				"children.overrides.worker.model": "anthropic/claude-sonnet-4-6",
				"children.overrides.worker.thinking": "low",
			}),
		).toEqual([
			`the "worker" role's reviewer would be the session's own model (anthropic/claude-sonnet-4-6): it would review its own work`,
			`the "worker" role's reviewer thinking drops from high to low`,
		]);
	});

	it("detectors, the severity threshold and cadence (for when the action grows these keys)", () => {
		expect(judge(watched(), { "lsp.enabled": false, "loops.enabled": false })).toEqual([
			"turns the LSP pre-pass off",
			"turns the loop detector off",
		]);
		expect(judge(watched(), { severityThreshold: "blocker" })).toEqual([
			"raises severityThreshold from concern to blocker, which hides every concern",
		]);
		expect(
			judge(
				watched((s) => (s.severityThreshold = "blocker")),
				{ severityThreshold: "concern" },
			),
		).toEqual([]);
		const every5 = watched((s) => (s.cadence.everyNTools = 5));
		expect(judge(every5, { "cadence.everyNTools": 0 })).toEqual(["turns cadence reviews off (cadence.everyNTools)"]);
		expect(judge(every5, { "cadence.everyNTools": false })).toEqual([
			"turns cadence reviews off (cadence.everyNTools)",
		]);
		expect(judge(every5, { "cadence.everyNTools": 10 })).toEqual([
			"makes cadence reviews rarer: every 10 tool results instead of 5 (cadence.everyNTools)",
		]);
		expect(judge(watched(), { "cadence.everyNTools": 5 })).toEqual([]);
		expect(
			judge(
				watched((s) => (s.rules.action = "block")),
				{ "rules.action": "warn" },
			),
		).toHaveLength(1);
	});

	it("lists every reason of a change that lowers several things", () => {
		expect(
			judge(watched(), { enabled: false, "main.model": "anthropic/claude-sonnet-4-6", "main.thinking": "off" }),
		).toHaveLength(3);
	});

	it("a session without a model: no family to compare, only the rest", () => {
		expect(judge(watched(), { "main.model": "inherit", "main.thinking": "inherit" }, {})).toEqual([
			"the main watchdog's reviewer thinking would follow the session's level (now off) instead of high",
		]);
	});
});
