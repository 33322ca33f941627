// The limit classifier and the choice of the next model: which errors rotate, which are
// transient, which are none of our business; the order candidates are tried in and the
// reasons models are passed over.
import { describe, expect, it } from "vitest";
import { classifyFailure } from "../../../src/models/index.ts";
import { candidates, limitOf, rotationBlocked } from "../../../src/rotate/index.ts";

const error = (errorMessage: string) => ({ role: "assistant", stopReason: "error", errorMessage });

describe("limitOf", () => {
	it.each([
		["429 You exceeded your current quota, please check your plan and billing details.", "an account or usage limit"],
		['429 {"error":{"message":"Rate limit reached","type":"insufficient_quota"}}', "an account or usage limit"],
		["Claude AI usage limit reached|1767225600", "an account or usage limit"],
		["You've hit your weekly limit · resets Mon 9:00am", "an account or usage limit"],
		["You've hit your limit · resets 3pm (Europe/Berlin)", "an account or usage limit"],
		[
			"403 Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing",
			"an account or usage limit",
		],
		["402 Insufficient credits. Add more using https://openrouter.ai/settings/credits", "an account or usage limit"],
		['429 {"error":{"code":"1308","message":"plan exhausted"}}', "an account or usage limit"],
		[
			"Server requested 3600s retry delay (max: 60s). 429 Too Many Requests",
			"a retry-after of 3600 s, longer than Pi waits (60 s)",
		],
	])("rotates on %s", (message, why) => {
		expect(limitOf(error(message))).toEqual({ kind: "limit", why, error: message });
	});

	it.each([
		"429 Too Many Requests",
		"429 rate limit: retry after 17s",
		"Rate limit reached for gpt-4o in organization org-x on tokens per min",
		"You've hit your rate limit, slow down",
	])("calls %s transient", (message) => {
		expect(limitOf(error(message))?.kind).toBe("transient");
	});

	it.each([
		"401 Incorrect API key provided",
		"500 Internal Server Error",
		"Request timed out",
		"context_length_exceeded: too many tokens",
		"403 Forbidden",
	])("leaves %s alone", (message) => {
		expect(limitOf(error(message))).toBeUndefined();
	});

	it("looks only at a run that ended on an error", () => {
		expect(limitOf({ role: "assistant", stopReason: "stop", errorMessage: "usage limit reached" })).toBeUndefined();
		expect(limitOf({ role: "assistant", stopReason: "aborted", errorMessage: "usage limit reached" })).toBeUndefined();
		expect(limitOf(undefined)).toBeUndefined();
	});

	it("names an account limit sent as a 429 a quota failure for the reviewer too", () => {
		expect(classifyFailure("429 insufficient_quota").kind).toBe("quota");
		expect(classifyFailure("429 Too Many Requests").kind).toBe("rate-limit");
	});
});

describe("candidates", () => {
	const memory = (limitedAt: Record<string, number> = {}, runStartedAt = 0) => ({ limitedAt, runStartedAt });

	it("tries the models after the current one first, then from the top", () => {
		const { tryInOrder, skipped } = candidates(["p/a", "p/b", "p/c", "p/d"], "p/b", memory(), 1000, 0);
		expect(tryInOrder.map((c) => c.ref)).toEqual(["p/c", "p/d", "p/a"]);
		expect(skipped).toEqual([{ ref: "p/b", reason: "same as current" }]);
	});

	it("starts at the top when the current model is not in the list, and keeps a model's thinking", () => {
		const { tryInOrder } = candidates(["p/a:high", "p/b"], "q/z", memory(), 1000, 0);
		expect(tryInOrder.map((c) => [c.ref, c.thinking])).toEqual([
			["p/a", "high"],
			["p/b", undefined],
		]);
	});

	it("passes over models limited in this run or within the cooldown, and inherit", () => {
		const now = 100_000;
		const { tryInOrder, skipped } = candidates(
			["p/a", "inherit", "p/b", "p/c", "p/d"],
			"p/x",
			memory({ "p/a": 95_000, "p/b": 45_000, "p/c": 1_000 }, 50_000),
			now,
			60_000,
		);
		expect(tryInOrder.map((c) => c.ref)).toEqual(["p/c", "p/d"]);
		expect(skipped).toEqual([
			{ ref: "p/a", reason: "hit a limit earlier in this run" },
			{ ref: "inherit", reason: '"inherit" names no model' },
			{ ref: "p/b", reason: "in cooldown: hit a limit 55 s ago (rotate.cooldownMs 60000)" },
		]);
	});
});

describe("rotationBlocked", () => {
	const settings = { enabled: true, models: ["p/a"], cooldownMs: 600_000 };
	it("says why nothing may switch: policy, cooldown, an empty list, no continuation", () => {
		const fresh = { limitedAt: {}, runStartedAt: 0 };
		expect(rotationBlocked(settings, "handsoff", fresh, 0)).toMatch(/policy handsoff/);
		expect(rotationBlocked(settings, "off", fresh, 0)).toBe("policy off");
		expect(rotationBlocked(settings, "keep", { ...fresh, lastRotationAt: 1_000 }, 121_000)).toBe(
			"in cooldown: the last rotation was 2 min ago (rotate.cooldownMs 600000)",
		);
		expect(rotationBlocked(settings, "keep", { ...fresh, lastRotationAt: 1_000 }, 601_000)).toBeUndefined();
		expect(rotationBlocked({ ...settings, models: [] }, "keep", fresh, 0)).toBe("rotate.models is empty");
		expect(rotationBlocked(settings, "keep", fresh, 0, "budget spent")).toBe(
			"the session could not continue: budget spent",
		);
	});
});
