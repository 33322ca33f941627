// The settings this change adds: `headless.strict`, `permissions.model` and
// `permissions.threshold`: defaults, what they refuse, and that neither a project nor an agent
// may use them to watch less closely.
import { describe, expect, it } from "vitest";
import { loweredOversight } from "../../../src/settings/oversight.ts";
import { resolveSettings } from "../../../src/settings/resolve.ts";
import { DEFAULT_SETTINGS } from "../../../src/settings/defaults.ts";
import { tightenOnly } from "../../../src/settings/tighten.ts";

const user = (watchdog: unknown) => ({
	source: "user" as const,
	origin: "/home/u/.pi/agent/settings.json",
	document: { subagents: { watchdog } },
});
const session = { model: { provider: "p", id: "m" } };

describe("headless and arbiter settings", () => {
	it("have defaults and take values from a file", () => {
		expect(resolveSettings([]).settings.headless).toEqual({ strict: false });
		expect(resolveSettings([]).settings.permissions).toEqual({ timeoutMs: 20_000, model: "inherit", threshold: 0.8 });
		const r = resolveSettings([
			user({ headless: { strict: true }, permissions: { model: "cf/clef", threshold: 0.9 } }),
		]);
		expect(r.errors).toEqual([]);
		expect(r.settings.headless.strict).toBe(true);
		expect(r.settings.permissions).toMatchObject({ model: "cf/clef", threshold: 0.9 });
	});

	it("refuse a threshold outside 0.5 to 0.99", () => {
		for (const threshold of [0.3, 1, "high"]) {
			const r = resolveSettings([user({ permissions: { threshold } })]);
			expect(r.errors).toEqual([expect.objectContaining({ key: "permissions.threshold" })]);
		}
	});

	it("let a project turn strict on and raise the threshold, never the reverse, nor pick the arbiter", () => {
		const below = { ...DEFAULT_SETTINGS, headless: { strict: true } };
		const judged = tightenOnly(below, {
			headless: { strict: false },
			permissions: { threshold: 0.7, model: "cf/clef" },
		});
		expect(judged.refused.map((r) => r.key).sort()).toEqual([
			"headless.strict",
			"permissions.model",
			"permissions.threshold",
		]);
		expect(
			tightenOnly(DEFAULT_SETTINGS, { headless: { strict: true }, permissions: { threshold: 0.95 } }).refused,
		).toEqual([]);
	});

	it("name an agent's change that turns strict off, changes the arbiter or lowers its threshold", () => {
		const before = { ...DEFAULT_SETTINGS, headless: { strict: true } };
		const reasons = loweredOversight(
			before,
			[
				["headless.strict", false],
				["permissions.model", "cf/clef"],
				["permissions.threshold", 0.6],
			],
			session,
		);
		expect(reasons).toEqual([
			"no longer fails a print or RPC run that ends with an open blocker",
			"changes the permission arbiter's model from inherit to cf/clef",
			"lowers the classifier arbiter's threshold from 0.8 to 0.6",
		]);
	});
});
