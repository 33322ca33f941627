// `history.maxBytes`: its default, its source, and the values it refuses.
import { describe, expect, it } from "vitest";
import { resolveSettings } from "../../../src/settings/resolve.ts";

const user = (watchdog: unknown) => ({
	source: "user" as const,
	origin: "/home/u/.pi/agent/settings.json",
	document: { subagents: { watchdog } },
});

describe("history.maxBytes", () => {
	it("defaults to 10 MiB and takes a value from a file", () => {
		expect(resolveSettings([]).settings.history).toEqual({ maxBytes: 10_485_760 });
		const r = resolveSettings([user({ history: { maxBytes: 1_048_576 } })]);
		expect(r.errors).toEqual([]);
		expect(r.settings.history.maxBytes).toBe(1_048_576);
		expect(r.sources["history.maxBytes"]).toBe("user");
	});

	it("refuses a size too small to keep anything, a fraction and a string, naming the key", () => {
		for (const [value, rule] of [
			[1000, /at least 65536/],
			[2 ** 31, /at most 1073741824/],
			[100_000.5, /whole number of bytes/],
			["10MB", /whole number of bytes/],
		] as const) {
			const r = resolveSettings([user({ history: { maxBytes: value } })]);
			expect(r.enabled).toBe(false);
			expect(r.errors).toEqual([
				expect.objectContaining({ key: "history.maxBytes", message: expect.stringMatching(rule) }),
			]);
		}
		expect(resolveSettings([user({ history: { keep: 3 } })]).warnings[0].message).toMatch(
			/unknown key subagents\.watchdog\.history\.keep/,
		);
	});
});
