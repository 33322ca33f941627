// Launch-rule settings of the wrong shape are errors that say what is expected, key by key.
import { describe, expect, it } from "vitest";
import { validateLayer } from "../../../src/settings/resolve.ts";

const errorsOf = (rules: unknown) => validateLayer({ rules }).errors.map((e) => e.message);

describe("rules settings", () => {
	it("accepts the documented shape", () => {
		expect(
			validateLayer({
				rules: {
					action: "block",
					roleModels: {
						scout: { allow: ["openai-codex/gpt-5.6-luna:max"] },
						oracle: { deny: ["*"], note: "hard questions only" },
					},
				},
			}).errors,
		).toEqual([]);
	});

	it("says what is wrong with each key", () => {
		expect(errorsOf({ action: "stop" })).toEqual(["subagents.watchdog.rules.action: must be warn or block"]);
		expect(errorsOf({ roleModels: ["worker"] })).toEqual([
			'subagents.watchdog.rules.roleModels: must be an object keyed by agent role, e.g. { "worker": { "deny": ["openai/*"] } }',
		]);
		expect(errorsOf({ roleModels: { worker: "openai/*" } })).toEqual([
			'subagents.watchdog.rules.roleModels.worker: must be an object with allow, deny and note, e.g. { "deny": ["openai/*"], "note": "why" }',
		]);
		expect(errorsOf({ roleModels: { worker: { deny: "openai/*" } } })).toEqual([
			'subagents.watchdog.rules.roleModels.worker.deny: must be a list of glob patterns, e.g. ["openai/*", "anthropic/claude-*:high"]',
		]);
		expect(errorsOf({ roleModels: { worker: { allow: [5], note: 5 } } })).toEqual([
			'subagents.watchdog.rules.roleModels.worker.allow.0: must be a glob pattern (text), e.g. "openai/*"',
			"subagents.watchdog.rules.roleModels.worker.note: must be text",
		]);
		expect(errorsOf({ roleModels: { worker: { deny: [""] } } })).toEqual([
			"subagents.watchdog.rules.roleModels.worker.deny.0: a pattern may not be empty",
		]);
	});

	it("bounds the patterns: their length and how many one list holds", () => {
		expect(errorsOf({ roleModels: { worker: { deny: ["x".repeat(257)] } } })).toEqual([
			"subagents.watchdog.rules.roleModels.worker.deny.0: a pattern may be at most 256 characters long",
		]);
		expect(errorsOf({ roleModels: { worker: { allow: Array.from({ length: 65 }, (_, i) => `p/m${i}`) } } })).toEqual([
			"subagents.watchdog.rules.roleModels.worker.allow: at most 64 patterns per list",
		]);
		expect(errorsOf({ roleModels: { worker: { note: "n".repeat(1001) } } })).toEqual([
			"subagents.watchdog.rules.roleModels.worker.note: must be at most 1000 characters",
		]);
	});

	it("warns about a misspelt key instead of dropping it quietly", () => {
		expect(validateLayer({ rules: { roleModels: { worker: { denny: ["*"] } } } }).warnings).toEqual([
			{
				key: "rules.roleModels.worker.denny",
				message: "unknown key subagents.watchdog.rules.roleModels.worker.denny is ignored",
			},
		]);
	});
});
