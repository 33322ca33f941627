// The watchdog of one Pi session: its monitors, its findings sink, and the settle step.
// Other folders import from here; files inside the folder import each other directly.
export { SESSION_SETTINGS_ENTRY, WatchdogSession } from "./watchdog-session.ts";
export type { AgentCtx, Ctx, Monitor, ToolCallCheck, ToolCallVerdict } from "./monitor.ts";
export type { WatchdogHost, WatchdogOptions } from "./options.ts";
export { childTrust, piSettingsTrusted, TRUST_ENTRY } from "./trust-step.ts";
export type { ChildPort, LaunchHandle } from "./child-port.ts";
export {
	boundedTimeout,
	childLineage,
	type Lineage,
	pathText,
	readLineage,
	TOP,
	tooDeep,
	TreeSlots,
} from "./lineage.ts";
