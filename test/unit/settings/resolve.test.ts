import { describe, expect, it } from "vitest";
import { type LayerInput, resolveSettings } from "../../../src/settings/resolve.ts";
import { SERVER_MEMORY_MB } from "../../../src/lsp/index.ts";
import { DEFAULT_SETTINGS } from "../../../src/settings/defaults.ts";

const wd = (watchdog: unknown) => ({ subagents: { watchdog } });
const user = (doc: unknown): LayerInput => ({
	source: "user",
	origin: "/home/u/.pi/agent/settings.json",
	document: doc,
});
const project = (doc: unknown): LayerInput => ({ source: "project", origin: "/repo/.pi/settings.json", document: doc });
const session = (w: unknown): LayerInput => ({
	source: "session",
	origin: "session overrides",
	document: w,
	isWatchdogObject: true,
});

describe("settings precedence and provenance", () => {
	it("uses defaults when no source sets anything", () => {
		const r = resolveSettings([user({ theme: "dark" })]);
		expect(r.settings).toEqual(DEFAULT_SETTINGS);
		expect(r.sources.enabled).toBe("default");
		expect(r.sources["lsp.timeoutMs"]).toBe("default");
		expect(r.enabled).toBe(false);
		expect(r.errors).toEqual([]);
	});

	it("lets later sources override earlier ones field by field, and records where each value came from", () => {
		const r = resolveSettings([
			user(
				wd({
					enabled: true,
					agentEndTimeoutMs: 30_000,
					lsp: { timeoutMs: 5000, maxFiles: 5 },
					cadence: { everyNTools: 10 },
				}),
			),
			project(wd({ lsp: { maxFiles: 7 }, cadence: { everyNTools: 0 } })),
			session({ agentEndTimeoutMs: 45_000 }),
		]);
		expect(r.enabled).toBe(true);
		expect(r.settings.agentEndTimeoutMs).toBe(45_000);
		expect(r.sources.agentEndTimeoutMs).toBe("session");
		expect(r.settings.lsp).toEqual({
			enabled: true,
			timeoutMs: 5000,
			maxFiles: 7,
			idleMs: 300_000,
			serverMemoryMb: SERVER_MEMORY_MB,
		});
		expect(r.sources["lsp.timeoutMs"]).toBe("user");
		expect(r.sources["lsp.maxFiles"]).toBe("project");
		expect(r.sources["lsp.enabled"]).toBe("default");
		expect(r.settings.cadence.everyNTools).toBe(0);
		expect(r.sources["cadence.everyNTools"]).toBe("project");
		expect(r.sources.enabled).toBe("user");
	});

	it("merges role maps per role and per field", () => {
		const r = resolveSettings([
			user(
				wd({
					children: { overrides: { worker: { model: "a/b:low" }, reviewer: { enabled: false } } },
					rules: { roleModels: { scout: { allow: ["x/*"] } } },
				}),
			),
			project(
				wd({
					children: { overrides: { worker: { enabled: true } } },
					rules: { action: "block", roleModels: { oracle: { deny: ["*"], note: "ask first" } } },
				}),
			),
		]);
		expect(r.settings.children.overrides).toEqual({
			worker: { model: "a/b", thinking: "low", enabled: true },
			reviewer: { enabled: false },
		});
		expect(r.sources["children.overrides.worker.enabled"]).toBe("project");
		expect(r.sources["children.overrides.worker.model"]).toBe("user");
		expect(r.settings.rules).toEqual({
			action: "block",
			roleModels: { scout: { allow: ["x/*"] }, oracle: { deny: ["*"], note: "ask first" } },
		});
	});

	it("reads a model's thinking suffix, runs a model without one at thinking off, and lets inherit inherit thinking", () => {
		const a = resolveSettings([user(wd({ main: { model: "anthropic/claude-opus-4-8:high" } }))]);
		expect(a.settings.main).toEqual({ model: "anthropic/claude-opus-4-8", thinking: "high" });
		expect(a.sources["main.thinking"]).toBe("user");
		// A later model without a level does not pick up the earlier level.
		const b = resolveSettings([
			user(wd({ main: { model: "anthropic/claude-opus-4-8:high" } })),
			project(wd({ main: { model: "openai/gpt-5.5" } })),
		]);
		expect(b.settings.main).toEqual({ model: "openai/gpt-5.5", thinking: "off" });
		// No file names that level: status says where it came from.
		expect(b.implied).toEqual({ "main.thinking": "from main.model, which names no thinking level" });
		expect(a.implied).toEqual({ "main.thinking": "from main.model" });
		// An explicit thinking key in the same layer wins over the suffix.
		const c = resolveSettings([user(wd({ main: { model: "openai/gpt-5.5:low", thinking: "xhigh" } }))]);
		expect(c.settings.main.thinking).toBe("xhigh");
		// A later thinking-only layer changes just the level.
		const d = resolveSettings([
			user(wd({ main: { model: "openai/gpt-5.5:low" } })),
			session({ main: { thinking: "high" } }),
		]);
		expect(d.settings.main).toEqual({ model: "openai/gpt-5.5", thinking: "high" });
		expect(d.sources["main.model"]).toBe("user");
		expect(d.sources["main.thinking"]).toBe("session");
		const e = resolveSettings([
			user(wd({ main: { model: "openai/gpt-5.5:low" } })),
			session({ main: { model: "inherit" } }),
		]);
		expect(e.settings.main).toEqual({ model: "inherit", thinking: "inherit" });
	});

	it("treats main.enabled alone as enabled, and beside enabled as the main session's own switch", () => {
		const r = resolveSettings([user(wd({ main: { enabled: true } }))]);
		expect(r.enabled).toBe(true);
		expect(r.sources.enabled).toBe("user");
		const both = resolveSettings([user(wd({ enabled: false, main: { enabled: true } }))]);
		expect(both.enabled).toBe(false);
		expect(both.warnings.map((w) => w.message).join()).toMatch(
			/enabled is false, which turns every watchdog off; main\.enabled: true has no effect/,
		);
		// Watch children only: the master switch on, the main session's off.
		const kids = resolveSettings([user(wd({ enabled: true, main: { enabled: false }, children: { enabled: true } }))]);
		expect(kids.settings.enabled).toBe(true);
		expect(kids.enabled).toBe(false);
		expect(kids.warnings).toEqual([]);
	});
});

describe("bad settings input", () => {
	it("warns about unknown keys without turning the watchdog off", () => {
		const r = resolveSettings([user(wd({ enabled: true, cadense: { everyNTools: 5 }, lsp: { timeout: 1 } }))]);
		expect(r.enabled).toBe(true);
		expect(r.errors).toEqual([]);
		expect(r.warnings.map((w) => w.key).sort()).toEqual(["cadense", "lsp.timeout"]);
		expect(r.warnings[0].origin).toContain("settings.json");
	});

	it("lists every invalid value with its key and file, and turns the watchdog off", () => {
		const r = resolveSettings([
			user(
				wd({
					enabled: "yes",
					agentEndTimeoutMs: -5,
					severityThreshold: "fatal",
					stalemateRepeats: 1.5,
					cadence: { everyNTools: 3 },
					main: { model: "two words", thinking: "extreme" },
					lsp: { maxFiles: 0 },
					idle: { policy: "sometimes" },
					rules: { action: "deny", roleModels: { worker: { allow: "x/*" } } },
					children: { overrides: { worker: { cadence: { everyNTools: 2 } } } },
				}),
			),
		]);
		expect(r.enabled).toBe(false);
		const keys = r.errors.map((e) => e.key).sort();
		expect(keys).toEqual(
			[
				"agentEndTimeoutMs",
				"cadence.everyNTools",
				"children.overrides.worker.cadence.everyNTools",
				"enabled",
				"idle.policy",
				"lsp.maxFiles",
				"main.model",
				"main.thinking",
				"rules.action",
				"rules.roleModels.worker.allow",
				"severityThreshold",
				"stalemateRepeats",
			].sort(),
		);
		for (const e of r.errors) {
			expect(e.origin).toBe("/home/u/.pi/agent/settings.json");
			expect(e.message).toContain(`subagents.watchdog.${e.key}`);
		}
		expect(r.errors.find((e) => e.key === "cadence.everyNTools")?.message).toMatch(/at least 5/);
		expect(r.errors.find((e) => e.key === "main.model")?.message).toMatch(/provider\/id/);
	});

	it("reports wrong shapes of the containers", () => {
		for (const [doc, pattern] of [
			[[1, 2], /JSON object, not an array/],
			["text", /JSON object, not a string/],
			[{ subagents: 5 }, /"subagents" must be an object, not a number/],
			[{ subagents: { watchdog: true } }, /"subagents.watchdog" must be an object, not a boolean/],
			[{ subagents: { watchdog: null } }, /must be an object, not null/],
		] as const) {
			const r = resolveSettings([user(doc)]);
			expect(r.enabled).toBe(false);
			expect(r.errors).toHaveLength(1);
			expect(r.errors[0].message).toMatch(pattern);
		}
	});

	it("keeps other layers' values in effect but stays off while one layer is invalid", () => {
		const r = resolveSettings([
			user(wd({ enabled: true, lsp: { maxFiles: 3 } })),
			project(wd({ stalemateRepeats: "three" })),
		]);
		expect(r.enabled).toBe(false);
		expect(r.settings.enabled).toBe(true);
		expect(r.settings.lsp.maxFiles).toBe(3);
		expect(r.errors).toHaveLength(1);
		expect(r.errors[0].source).toBe("project");
	});

	it("reports read errors and ignored sources", () => {
		const r = resolveSettings([
			{
				source: "user",
				origin: "/u/settings.json",
				readError: "/u/settings.json: invalid JSON at line 3, column 5: Unexpected token",
			},
			{ source: "project", origin: "/p/.pi/settings.json", ignoredReason: "ignored: this project is not trusted" },
		]);
		expect(r.errors[0].message).toMatch(/line 3, column 5/);
		expect(r.ignored[0].message).toMatch(/not trusted/);
		expect(r.enabled).toBe(false);
	});
});
