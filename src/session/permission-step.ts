// The child permission gate as one of the session's tool-call checks. Its arbiter is the child
// watchdog: that watchdog's settings, its reviewer model and its history log.
import type { ReviewerChoice } from "../models/index.ts";
import { PermissionGate, type PermissionPolicy } from "../permissions/index.ts";
import { childOffReason, type ResolvedSettings } from "../settings/index.ts";
import type { Ctx, HistoryCtx, HistoryLine, ToolCallCheck } from "./monitor.ts";

export interface PermissionDeps {
	role: string;
	task: string;
	settings(ctx: Ctx): ResolvedSettings;
	parentSettings?: () => ResolvedSettings;
	reviewer(ctx: Ctx): ReviewerChoice;
	record(ctx: HistoryCtx, line: HistoryLine): void;
}

export function permissionCheck(deps: PermissionDeps, policy: PermissionPolicy): ToolCallCheck {
	const gate = new PermissionGate(policy, {
		role: deps.role,
		task: deps.task,
		settings: (ctx) => {
			const c = ctx as Ctx;
			const resolved = deps.settings(c);
			const parent = deps.parentSettings;
			return {
				enabled: resolved.enabled,
				offReason: parent ? childOffReason(parent(), deps.role) : "the watchdog is off",
				choice: deps.reviewer(c),
				timeoutMs: resolved.settings.permissions.timeoutMs,
			};
		},
		record: (ctx, line) => deps.record(ctx as unknown as HistoryCtx, line as unknown as HistoryLine),
	});
	return (ctx, call) => gate.check(ctx, call);
}
