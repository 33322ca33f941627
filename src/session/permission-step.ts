// The child permission gate as one of the session's tool-call checks. Its arbiter runs on the
// child watchdog's model when that watchdog is on, else on the main watchdog's: a rule that asks
// is answered either way (the user wrote it; the children's switch is about reviews).
import { chooseReviewer, type ReviewerChoice, type SessionModelInfo } from "../models/index.ts";
import { PermissionGate, type PermissionPolicy } from "../permissions/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import type { Ctx, HistoryCtx, HistoryLine, ToolCallCheck } from "./monitor.ts";

export interface PermissionDeps {
	role: string;
	task: string;
	settings(ctx: Ctx): ResolvedSettings;
	parentSettings?: () => ResolvedSettings;
	reviewer(ctx: Ctx): ReviewerChoice;
	sessionModel(ctx: Ctx): SessionModelInfo;
	record(ctx: HistoryCtx, line: HistoryLine): void;
}

export function permissionCheck(deps: PermissionDeps, policy: PermissionPolicy): ToolCallCheck {
	const gate = new PermissionGate(policy, {
		role: deps.role,
		task: deps.task,
		settings: (ctx) => {
			const c = ctx as Ctx;
			const resolved = deps.settings(c);
			const parent = deps.parentSettings?.();
			const choice =
				resolved.enabled || !parent ? deps.reviewer(c) : chooseReviewer(parent.settings.main, deps.sessionModel(c));
			return { enabled: true, choice, timeoutMs: resolved.settings.permissions.timeoutMs };
		},
		record: (ctx, line) => deps.record(ctx as unknown as HistoryCtx, line as unknown as HistoryLine),
	});
	return (ctx, call) => gate.check(ctx, call);
}

/** Which model answers `ask` rules, for status: the child watchdogs' when they are on, else the main watchdog's. */
export function arbiterModelText(settings: ResolvedSettings["settings"]): string {
	return settings.children.enabled
		? "ask permissions: the child watchdogs' model"
		: "ask permissions: the main watchdog's model (child watchdogs off)";
}
