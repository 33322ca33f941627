// The check a start uses to leave an off watchdog unloaded: it must never call a watchdog off that the full
// resolution would turn on (or warn about), and it says "not sure" for anything it does not read.
import { describe, expect, it } from "vitest";
import { masterSwitchOff, WATCHDOG_KEYS } from "../../../src/settings/master-switch.ts";
import { fullLayerSchema } from "../../../src/settings/schema.ts";
import { resolveSettings } from "../../../src/settings/resolve.ts";

const doc = (watchdog: unknown) => ({ subagents: { watchdog } });

describe("masterSwitchOff", () => {
	it("is sure for no file, no watchdog section, and enabled false or left at its default", () => {
		expect(masterSwitchOff(undefined)).toBe(true);
		expect(masterSwitchOff({ theme: "dark" })).toBe(true);
		expect(masterSwitchOff({ subagents: {} })).toBe(true);
		expect(masterSwitchOff(doc({}))).toBe(true);
		expect(masterSwitchOff(doc({ enabled: false, main: { model: "local/reviewer" } }))).toBe(true);
		expect(masterSwitchOff(doc({ main: { enabled: false } }))).toBe(true);
	});

	it("is not sure when the watchdog is on, or the file says something it does not read", () => {
		expect(masterSwitchOff(doc({ enabled: true }))).toBe(false);
		expect(masterSwitchOff(doc({ main: { enabled: true } }))).toBe(false);
		// enabled false beside main.enabled true: off, with a warning the full resolution gives
		expect(masterSwitchOff(doc({ enabled: false, main: { enabled: true } }))).toBe(false);
		expect(masterSwitchOff(doc({ enabled: "yes" }))).toBe(false);
		expect(masterSwitchOff(doc("on"))).toBe(false);
		expect(masterSwitchOff({ subagents: [] })).toBe(false);
		expect(masterSwitchOff(doc({ main: "x" }))).toBe(false);
		expect(masterSwitchOff([])).toBe(false);
		// misspelt keys are errors to show at start; so is pi-subagents' depth key, which is not read here
		expect(masterSwitchOff(doc({ enabeld: true }))).toBe(false);
		expect(masterSwitchOff(doc({ enabled: false, main: { enabeld: true } }))).toBe(false);
		expect(masterSwitchOff({ subagents: { maxSubagentDepth: 3, watchdog: { enabled: false } } })).toBe(false);
	});

	it("knows every key of the settings schema, and no other", () => {
		expect([...WATCHDOG_KEYS].sort()).toEqual(Object.keys(fullLayerSchema().shape).sort());
		expect(Object.keys(fullLayerSchema().shape.main.def.innerType.shape).sort()).toEqual([
			"enabled",
			"model",
			"thinking",
		]);
	});

	it("never says off where the full resolution turns the watchdog on or warns about the switch", () => {
		const values = [undefined, true, false, null, "yes", 0, 1, {}];
		const mains = [undefined, {}, { enabled: true }, { enabled: false }, { enabled: "x" }, "x", { model: "a/b" }];
		let sure = 0;
		for (const enabled of values)
			for (const main of mains)
				for (const extra of [{}, { lsp: { enabled: true } }, { lsp: "x" }, { bogus: 1 }]) {
					const watchdog = { ...extra, ...(enabled === undefined ? {} : { enabled }), ...(main ? { main } : {}) };
					if (!masterSwitchOff(doc(watchdog))) continue;
					sure++;
					const resolved = resolveSettings([{ source: "user", origin: "settings.json", document: doc(watchdog) }]);
					expect(resolved.enabled, JSON.stringify(watchdog)).toBe(false);
					expect(resolved.settings.enabled, JSON.stringify(watchdog)).toBe(false);
					expect(
						resolved.warnings.filter((w) => w.key?.includes("enabled")),
						JSON.stringify(watchdog),
					).toEqual([]);
				}
		expect(sure).toBeGreaterThan(10);
	});
});
