// The watchdog of one Pi session: its monitors, its findings sink, and the settle step.
// Other folders import from here; files inside the folder import each other directly.
export { SESSION_SETTINGS_ENTRY, WatchdogSession, type AgentCtx, type Ctx, type ToolCallCheck, type ToolCallVerdict, type WatchdogOptions } from "./watchdog-session.ts";
export { reviewNow } from "./review-now.ts";
export { childTrust, piSettingsTrusted, TRUST_ENTRY, trustNow } from "./trust-step.ts";
export { type ChildPort, type LaunchHandle } from "./child-port.ts";
