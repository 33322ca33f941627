// `children.maxBackground` and the bound on `children.timeoutMs`: defaults, and what is refused.
import { describe, expect, it } from "vitest";
import { resolveSettings } from "../../../src/settings/resolve.ts";
import { DEFAULT_SETTINGS } from "../../../src/settings/defaults.ts";
import { tightenOnly } from "../../../src/settings/tighten.ts";

const user = (watchdog: unknown) => ({
	source: "user" as const,
	origin: "/home/u/.pi/agent/settings.json",
	document: { subagents: { watchdog } },
});

describe("children limits", () => {
	it("defaults to 4 background runs at once and takes a value from a file", () => {
		expect(resolveSettings([]).settings.children.maxBackground).toBe(4);
		const r = resolveSettings([user({ children: { maxBackground: 2 } })]);
		expect(r.errors).toEqual([]);
		expect(r.settings.children.maxBackground).toBe(2);
		expect(r.sources["children.maxBackground"]).toBe("user");
	});

	it("refuses a cap below 1 or past 32, and a child deadline a timer cannot hold", () => {
		for (const [key, value, rule] of [
			["maxBackground", 0, /at least 1/],
			["maxBackground", 33, /at most 32/],
			["timeoutMs", 3_000_000_000, /at most 86400000 ms \(24 hours\)/],
		] as const) {
			const r = resolveSettings([user({ children: { [key]: value } })]);
			expect(r.enabled).toBe(false);
			expect(r.errors).toEqual([
				expect.objectContaining({ key: `children.${key}`, message: expect.stringMatching(rule) }),
			]);
		}
	});

	it("children.maxDepth defaults to 2, takes 1 to 5, and a project may lower it but never raise it", () => {
		expect(resolveSettings([]).settings.children.maxDepth).toBe(2);
		expect(resolveSettings([user({ children: { maxDepth: 1 } })]).settings.children.maxDepth).toBe(1);
		for (const [value, rule] of [
			[0, /at least 1/],
			[6, /at most 5/],
		] as const)
			expect(resolveSettings([user({ children: { maxDepth: value } })]).errors).toEqual([
				expect.objectContaining({ key: "children.maxDepth", message: expect.stringMatching(rule) }),
			]);
		const below = structuredClone(DEFAULT_SETTINGS);
		expect(tightenOnly(below, { children: { maxDepth: 1 } }).refused).toEqual([]);
		expect(tightenOnly(below, { children: { maxDepth: 3 } }).refused).toEqual([
			{ key: "children.maxDepth", value: 3, why: "would let children nest deeper (2 → 3)" },
		]);
	});
});
