// `children.maxBackground` and the bound on `children.timeoutMs`: defaults, and what is refused.
import { describe, expect, it } from "vitest";
import { resolveSettings } from "../../../src/settings/resolve.ts";

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
});
