// What a child's watchdog runs with: the parent's effective settings seen through the child
// configuration. A child never reads settings files of its own (a worktree child's folder is a
// copy of the project that nobody decided to trust); it takes the parent's and applies
// `children.*` and `children.overrides.<role>.*` on top.
import type { ResolvedSettings } from "./resolve.ts";
import type { WatchdogSettings } from "./defaults.ts";

/** The settings a child watchdog of `role` runs with. */
export function childView(parent: ResolvedSettings, role: string): ResolvedSettings {
	const s = parent.settings;
	const override = Object.hasOwn(s.children.overrides, role) ? s.children.overrides[role] : undefined;
	const isSet = (key: string) => (parent.sources[key] ?? "default") !== "default";
	// Model: the role's override, then `children.model`, then the main reviewer choice.
	const model = override?.model ?? (s.children.model !== "inherit" ? s.children.model : s.main.model);
	const thinking = override?.thinking ?? (s.children.thinking !== "inherit" ? s.children.thinking : s.main.thinking);
	// Cadence: the role's override, then `children.cadence`, then `cadence`.
	const every =
		override?.cadence?.everyNTools ??
		(isSet("children.cadence.everyNTools") ? s.children.cadence.everyNTools : s.cadence.everyNTools);
	const settings: WatchdogSettings = {
		...s,
		main: { model, thinking },
		cadence: { everyNTools: every },
		// Clarification and rotation are the main session's alone.
		clarification: false,
		rotate: { ...s.rotate, enabled: false },
	};
	// The master switch, then the role's own switch where it has one, else `children.enabled`
	// (as pi-subagents reads them). `main.enabled` is the main session's alone.
	const enabled = masterOn(parent) && (override?.enabled ?? s.children.enabled);
	return { ...parent, settings: { ...settings, enabled }, enabled };
}

function masterOn(parent: ResolvedSettings): boolean {
	return parent.settings.enabled && parent.errors.length === 0;
}

/** Why a child's watchdog is off, or undefined when it is on. */
export function childOffReason(parent: ResolvedSettings, role: string): string | undefined {
	if (!masterOn(parent)) return parent.errors.length ? "settings errors" : "the watchdog is off";
	const override = Object.hasOwn(parent.settings.children.overrides, role)
		? parent.settings.children.overrides[role]
		: undefined;
	if (override?.enabled === false) return `children.overrides.${role}.enabled is false`;
	if (override?.enabled === undefined && !parent.settings.children.enabled) return "children.enabled is false";
	return undefined;
}
