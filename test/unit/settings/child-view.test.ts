// A child's watchdog settings: the parent's, through children.* and children.overrides.<role>.
import { describe, expect, it } from "vitest";
import { childOffReason, childView } from "../../../src/settings/child-view.ts";
import { resolveSettings } from "../../../src/settings/resolve.ts";

const resolved = (user: Record<string, unknown>) =>
	resolveSettings([{ source: "user", origin: "user settings", document: { subagents: { watchdog: user } } }]);

describe("childView", () => {
	it("takes the model from the role's override, then children.model, then the main choice", () => {
		const r = resolved({
			enabled: true,
			main: { model: "a/main" },
			children: { enabled: true, model: "b/kids", overrides: { scout: { model: "c/scout" } } },
		});
		expect(childView(r, "scout").settings.main.model).toBe("c/scout");
		expect(childView(r, "worker").settings.main.model).toBe("b/kids");
		const inherit = resolved({
			enabled: true,
			main: { model: "a/main", thinking: "high" },
			children: { enabled: true },
		});
		expect(childView(inherit, "worker").settings.main).toEqual({ model: "a/main", thinking: "high" });
	});

	it("takes the cadence from the role's override, then children.cadence when set, then cadence", () => {
		const r = resolved({
			enabled: true,
			cadence: { everyNTools: 10 },
			children: { enabled: true, cadence: { everyNTools: 20 }, overrides: { scout: { cadence: { everyNTools: 5 } } } },
		});
		expect(childView(r, "scout").settings.cadence.everyNTools).toBe(5);
		expect(childView(r, "worker").settings.cadence.everyNTools).toBe(20);
		const main = resolved({ enabled: true, cadence: { everyNTools: 10 }, children: { enabled: true } });
		expect(childView(main, "worker").settings.cadence.everyNTools).toBe(10);
		// children.cadence set to off on purpose is not "unset"
		const off = resolved({
			enabled: true,
			cadence: { everyNTools: 10 },
			children: { enabled: true, cadence: { everyNTools: 0 } },
		});
		expect(childView(off, "worker").settings.cadence.everyNTools).toBe(0);
	});

	it("is on only when the watchdog, children.enabled and the role are on", () => {
		const r = resolved({ enabled: true, children: { enabled: true, overrides: { scout: { enabled: false } } } });
		expect(childView(r, "worker").enabled).toBe(true);
		expect(childView(r, "scout").enabled).toBe(false);
		expect(childOffReason(r, "scout")).toBe("children.overrides.scout.enabled is false");
		const kidsOff = resolved({ enabled: true });
		expect(childView(kidsOff, "worker").enabled).toBe(false);
		expect(childOffReason(kidsOff, "worker")).toBe("children.enabled is false");
		expect(childView(resolved({ enabled: false, children: { enabled: true } }), "worker").enabled).toBe(false);
	});

	it("turns one role on by its override without children.enabled, as pi-subagents does", () => {
		const r = resolved({ enabled: true, children: { overrides: { worker: { enabled: true } } } });
		expect(childView(r, "worker").enabled).toBe(true);
		expect(childOffReason(r, "worker")).toBeUndefined();
		expect(childView(r, "scout").enabled).toBe(false);
		expect(childOffReason(r, "scout")).toBe("children.enabled is false");
		// The master switch still rules.
		expect(
			childView(resolved({ enabled: false, children: { overrides: { worker: { enabled: true } } } }), "worker").enabled,
		).toBe(false);
	});

	it("keeps the children watched when main.enabled is false (watch children only)", () => {
		const r = resolved({ enabled: true, main: { enabled: false }, children: { enabled: true } });
		expect(r.enabled).toBe(false);
		expect(childView(r, "worker").enabled).toBe(true);
		expect(childOffReason(r, "worker")).toBeUndefined();
	});
});
