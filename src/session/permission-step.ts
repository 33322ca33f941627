// The child permission gate as one of the session's tool-call checks. Its arbiter is the child
// watchdog: that watchdog's settings, its reviewer model and its history log.
import { PermissionGate, type PermissionPolicy } from "../permissions/index.ts";
import { childOffReason } from "../settings/index.ts";
import type { Ctx, HistoryCtx, HistoryLine, ToolCallCheck, WatchdogSession } from "./watchdog-session.ts";

export function permissionCheck(session: WatchdogSession, policy: PermissionPolicy): ToolCallCheck {
	const gate = new PermissionGate(policy, {
		role: session.options.role,
		task: session.options.task ?? "",
		settings: (ctx) => {
			const c = ctx as Ctx;
			const resolved = session.settings(c);
			const parent = session.options.parentSettings;
			return {
				enabled: resolved.enabled,
				offReason: parent ? childOffReason(parent(), session.options.role) : "the watchdog is off",
				choice: session.reviewer(c),
				timeoutMs: resolved.settings.permissions.timeoutMs,
			};
		},
		record: (ctx, line) => session.recordHistory(ctx as unknown as HistoryCtx, line as unknown as HistoryLine),
	});
	return (ctx, call) => gate.check(ctx, call);
}
