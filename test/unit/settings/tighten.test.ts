import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, type WatchdogSettings } from "../../../src/settings/defaults.ts";
import { tightenOnly } from "../../../src/settings/tighten.ts";

const below = (change: (s: WatchdogSettings) => void = () => {}): WatchdogSettings => {
	const s = structuredClone(DEFAULT_SETTINGS);
	change(s);
	return s;
};

describe("a project layer tightens, never loosens", () => {
	it("may raise the language server's heap limit (0 is Node's default, the highest), never lower it", () => {
		expect(tightenOnly(below(), { lsp: { serverMemoryMb: 4096 } }).layer).toEqual({ lsp: { serverMemoryMb: 4096 } });
		expect(tightenOnly(below(), { lsp: { serverMemoryMb: 0 } }).layer).toEqual({ lsp: { serverMemoryMb: 0 } });
		const lowered = tightenOnly(below(), { lsp: { serverMemoryMb: 256 } });
		expect(lowered.layer).toEqual({});
		expect(lowered.refused.map((r) => r.key)).toEqual(["lsp.serverMemoryMb"]);
		const nodeDefault = below((s) => (s.lsp.serverMemoryMb = 0));
		expect(tightenOnly(nodeDefault, { lsp: { serverMemoryMb: 2000 } }).layer).toEqual({});
	});

	it("refuses a weaker launch-rule action and keeps a stronger one", () => {
		const user = below((s) => (s.rules.action = "block"));
		expect(tightenOnly(user, { rules: { action: "warn" } })).toEqual({
			layer: {},
			refused: [{ key: "rules.action", value: "warn", why: "would weaken block to warn" }],
		});
		expect(tightenOnly(below(), { rules: { action: "block" } })).toEqual({
			layer: { rules: { action: "block" } },
			refused: [],
		});
	});

	it("adds deny patterns to yours, narrows allow lists only, and keeps your note", () => {
		const user = below(
			(s) => (s.rules.roleModels = { worker: { allow: ["a/*", "b/*"], deny: ["a/cheap"], note: "mine" } }),
		);
		const judged = tightenOnly(user, {
			rules: {
				roleModels: { worker: { deny: ["b/old"], allow: ["a/*", "c/*"], note: "theirs" }, scout: { allow: ["a/*"] } },
			},
		});
		expect(judged.layer).toEqual({
			rules: { roleModels: { worker: { deny: ["a/cheap", "b/old"] }, scout: { allow: ["a/*"] } } },
		});
		expect(judged.refused.map((r) => [r.key, r.why])).toEqual([
			["rules.roleModels.worker.allow", "would allow c/*, which your allow list does not"],
			["rules.roleModels.worker.note", "your own note for this role stays"],
		]);
		expect(tightenOnly(user, { rules: { roleModels: { worker: { allow: ["b/*"] } } } }).layer).toEqual({
			rules: { roleModels: { worker: { allow: ["b/*"] } } },
		});
	});

	it("turns detectors on but never off, and makes thresholds only stricter", () => {
		const judged = tightenOnly(below(), {
			enabled: true,
			loops: { enabled: false, repeats: 3, window: 20 },
			severityThreshold: "blocker",
			cadence: { everyNTools: 10 },
			idle: { policy: "off" },
			lsp: { maxFiles: 50 },
		});
		expect(judged.layer).toEqual({
			enabled: true,
			loops: { repeats: 3 },
			cadence: { everyNTools: 10 },
			lsp: { maxFiles: 50 },
		});
		expect(judged.refused.map((r) => r.key).sort()).toEqual([
			"idle.policy",
			"loops.enabled",
			"loops.window",
			"severityThreshold",
		]);
		const every5 = below((s) => (s.cadence.everyNTools = 5));
		expect(tightenOnly(every5, { cadence: { everyNTools: 0 } }).refused[0].why).toBe("would turn cadence reviews off");
		expect(tightenOnly(every5, { cadence: { everyNTools: 9 } }).refused[0].why).toBe(
			"would make cadence reviews rarer",
		);
	});

	it("leaves the models that watch you to you, and thinking may only rise", () => {
		const user = below((s) => (s.main = { model: "a/strong", thinking: "high" }));
		const judged = tightenOnly(user, {
			main: { model: "a/weak", thinking: "xhigh" },
			children: { overrides: { worker: { model: "a/weak", enabled: false } } },
		});
		// Turning off a role whose watchdog is already off (children are off by default) changes nothing.
		expect(judged.layer).toEqual({
			main: { thinking: "xhigh" },
			children: { overrides: { worker: { enabled: false } } },
		});
		expect(judged.refused.map((r) => r.key)).toEqual(["main.model", "children.overrides.worker.model"]);
		const watched = below((s) => (s.children.enabled = true));
		expect(tightenOnly(watched, { children: { overrides: { worker: { enabled: false } } } }).refused[0].why).toBe(
			"would turn this role's watchdog off",
		);
		expect(tightenOnly(user, { main: { thinking: "low" } }).refused[0].key).toBe("main.thinking");
	});
});
