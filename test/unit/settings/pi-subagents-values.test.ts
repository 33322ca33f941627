// Pure: pi-subagents' spellings of its watchdog values resolve with their meaning; a bare model
// id is placed at its one provider (or is an error naming the candidates); the caps and
// fallbacks it configures behave as documented; its command shapes parse.
import type { Api, Model } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { planDelivery } from "../../../src/findings/delivery.ts";
import { makeFinding } from "../../../src/findings/finding.ts";
import { parseCommand } from "../../../src/commands/watchdog-command.ts";
import { placeBareModels } from "../../../src/settings/bare-models.ts";
import { type LayerInput, resolveSettings } from "../../../src/settings/resolve.ts";

const user = (watchdog: unknown, rest: Record<string, unknown> = {}): LayerInput => ({
	source: "user",
	origin: "/u/settings.json",
	document: { subagents: { watchdog, ...rest } },
});
const model = (provider: string, id: string) => ({ provider, id }) as Model<Api>;
const lookup = (models: Model<Api>[]) => ({
	find: (p: string, i: string) => models.find((m) => m.provider === p && m.id === i),
	getAvailable: () => models,
});

describe("pi-subagents' values", () => {
	it("false is thinking off, null is cadence off, stalemateRepeats may be 1, maxWarnings may be null", () => {
		const r = resolveSettings([
			user({
				stalemateRepeats: 1,
				maxWarnings: null,
				cadence: { everyNTools: null },
				main: { model: "a/b", thinking: false },
				children: { thinking: false, overrides: { w: { cadence: { everyNTools: null } } } },
			}),
		]);
		expect(r.errors).toEqual([]);
		expect(r.settings.main.thinking).toBe("off");
		expect(r.settings.children.thinking).toBe("off");
		expect(r.settings.cadence.everyNTools).toBe(0);
		expect(r.settings.children.overrides.w.cadence?.everyNTools).toBe(0);
		expect(r.settings.stalemateRepeats).toBe(1);
		expect(r.settings.maxWarnings).toBeNull();
	});

	it("keys with no meaning here load, are listed as unsupported, and are not applied", () => {
		const r = resolveSettings([
			user(
				{ enabled: true, lsp: { maxDiagnostics: 5 }, children: { watchdogTailTimeoutMs: 1000 } },
				{ maxSubagentDepth: 3 },
			),
		]);
		expect(r.errors).toEqual([]);
		expect(r.enabled).toBe(true);
		expect(r.unsupported.map((u) => u.key).sort()).toEqual([
			"children.watchdogTailTimeoutMs",
			"lsp.maxDiagnostics",
			"subagents.maxSubagentDepth",
		]);
		expect(r.unsupported.find((u) => u.key === "subagents.maxSubagentDepth")?.message).toContain("children.maxDepth");
		expect(r.settings.lsp).not.toHaveProperty("maxDiagnostics");
		expect(r.sources).not.toHaveProperty("lsp.maxDiagnostics");
	});
});

describe("bare model ids", () => {
	it("are placed at the one provider that has the id, keeping a thinking suffix as the level", () => {
		const r = resolveSettings([user({ enabled: true, main: { model: "opus-9:high" }, fallbackModels: ["mini-2"] })]);
		expect(r.settings.main).toMatchObject({ model: "opus-9", thinking: "high" });
		const placed = placeBareModels(
			r,
			lookup([model("anth", "opus-9"), model("oai", "mini-2")]),
			() => "/u/settings.json",
		);
		expect(placed.errors).toEqual([]);
		expect(placed.settings.main.model).toBe("anth/opus-9");
		expect(placed.settings.fallbackModels).toEqual(["oai/mini-2"]);
		expect(placed.enabled).toBe(true);
	});

	it("offered by several providers, or none, are an error naming the key and the candidates", () => {
		const r = resolveSettings([user({ enabled: true, children: { model: "opus-9" }, idle: { model: "nowhere-1" } })]);
		const placed = placeBareModels(
			r,
			lookup([model("anth", "opus-9"), model("proxy", "opus-9")]),
			() => "/u/settings.json",
		);
		expect(placed.enabled).toBe(false);
		expect(placed.errors.map((e) => e.message)).toEqual([
			expect.stringMatching(/children\.model: model "opus-9" is offered by anth, proxy; write provider\/opus-9/),
			expect.stringMatching(/idle\.model: model "nowhere-1" \(no provider given\) is not known to Pi/),
		]);
		expect(placed.errors[0].origin).toBe("/u/settings.json");
	});

	it("leave settings without one untouched (the same object)", () => {
		const r = resolveSettings([user({ main: { model: "a/b" } })]);
		expect(placeBareModels(r, lookup([]), () => "x")).toBe(r);
	});
});

describe("maxWarnings", () => {
	const high = (summary: string, source = "main") =>
		makeFinding(
			{ summary, evidence: `${summary} evidence`, recommendedAction: "fix", importance: "high", severity: "blocker" },
			source,
		);
	it("sends at most the cap; the rest are held back for the user with the reason; launch-rule warnings pass", () => {
		const [a, b, rule] = [
			high("first problem here"),
			high("second unrelated issue"),
			high("launch rule broken", "rules"),
		];
		const plan = planDelivery({
			findings: [a, b, rule],
			threshold: "concern",
			stalemated: [],
			recentlyShown: [],
			sendCap: { left: 1, why: "maxWarnings 1" },
		});
		expect(plan.toModel).toEqual([a, rule]);
		expect(plan.decisions.find((d) => d.finding === b)?.fate).toBe("held back");
		const note = plan.entries.find((e) => e.type === "custom") as { data: { heldBack?: string } } | undefined;
		expect(note?.data.heldBack).toBe("maxWarnings 1");
	});
});

describe("command shapes", () => {
	it("test concern|blocker [text], thinking false", () => {
		expect(parseCommand("test blocker check the renderer")).toEqual({
			kind: "test",
			severity: "blocker",
			text: "check the renderer",
		});
		expect(parseCommand("test concern")).toEqual({ kind: "test", severity: "concern", text: "" });
		expect(parseCommand("test")).toMatchObject({ kind: "error" });
		expect(parseCommand("thinking false")).toMatchObject({
			kind: "configure",
			request: { thinking: "off", target: "main" },
		});
	});
});
