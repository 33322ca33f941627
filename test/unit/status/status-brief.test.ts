// The short status: a settings error is shown whole, so the part that says how to fix it stays.
import { describe, expect, it } from "vitest";
import { formatBrief } from "../../../src/status/status-brief.ts";
import type { ResolvedSettings } from "../../../src/settings/index.ts";

const brief = (errors: ResolvedSettings["errors"]) =>
	formatBrief({
		resolved: { errors } as unknown as ResolvedSettings,
		onOff: "off (settings errors)",
		reviewer: "inherit",
		pending: "nothing",
		lastReview: "none",
		findings: [],
		earlier: 0,
		lines: [],
	});

describe("the short status", () => {
	it("shows the first settings error whole, with where it is, and points to the rest", () => {
		const message =
			'severityThreshold must be concern or blocker (it is hide findings below it); set it to one of them, e.g. "concern"';
		const text = brief([
			{ source: "user", origin: "/home/me/.pi/agent/settings.json", key: "severityThreshold", message },
			{ source: "user", origin: "/home/me/.pi/agent/settings.json", key: "lsp.maxFiles", message: "too big" },
		]);
		expect(text).toContain("Settings errors (2; the rest: status --all):");
		expect(text).toContain(`  /home/me/.pi/agent/settings.json: ${message}`);
	});
});
