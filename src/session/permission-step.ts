// The child permission gate as one of the session's tool-call checks. Its arbiter is the child
// watchdog: that watchdog's settings, its reviewer model and its history log.
import { parseModelRef, type ReviewerChoice } from "../models/index.ts";
import {
	type DeniedAsk,
	type GateUser,
	PermissionGate,
	type PermissionPolicy,
	type UserAllowances,
} from "../permissions/index.ts";
import type { WatchdogOptions } from "./options.ts";
import { childOffReason, type ResolvedSettings } from "../settings/index.ts";
import type { Ctx, HistoryCtx, HistoryLine, ToolCallCheck } from "./monitor.ts";

export interface PermissionDeps {
	role: string;
	task: string;
	settings(ctx: Ctx): ResolvedSettings;
	parentSettings?: () => ResolvedSettings;
	reviewer(ctx: Ctx): ReviewerChoice;
	record(ctx: HistoryCtx, line: HistoryLine): void;
	user?: GateUser;
}

/**
 * The user's word over this child's arbiter: the tree's book, this child in it, and the
 * parent's user to tell of a denial and of the wait. Print mode has nobody to allow anything.
 */
export function gateUser(book: UserAllowances, options: WatchdogOptions, path: readonly string[]): GateUser {
	const user = options.parent?.user;
	const who = path.length ? path.join(" > ") : options.role;
	const canAllow = user && user.mode !== "print" && user.mode !== "json";
	return {
		book,
		child: `${options.runId ?? ""}/${who}`,
		who,
		...(canAllow
			? {
					tell: (d: DeniedAsk) =>
						user.notify(
							`The permission arbiter denied ${d.who}'s ${d.tool} call: ${d.reason}\n` +
								`To let that exact call run once: /subagents-watchdog allow ${d.id}`,
							"warning",
						),
				}
			: {}),
		...(user?.waiting ? { waiting: (text: string | undefined) => user.waiting?.(text) } : {}),
	};
}

export function permissionCheck(deps: PermissionDeps, policy: PermissionPolicy): ToolCallCheck {
	const gate = new PermissionGate(policy, {
		role: deps.role,
		task: deps.task,
		settings: (ctx) => {
			const c = ctx as Ctx;
			const resolved = deps.settings(c);
			const parent = deps.parentSettings;
			const { timeoutMs, model, threshold } = resolved.settings.permissions;
			return {
				enabled: resolved.enabled,
				offReason: parent ? childOffReason(parent(), deps.role) : "the watchdog is off",
				timeoutMs,
				...arbiterModel(c, model, threshold, () => deps.reviewer(c)),
			};
		},
		record: (ctx, line) => deps.record(ctx as unknown as HistoryCtx, line as unknown as HistoryLine),
		...(deps.user ? { user: deps.user } : {}),
	});
	return (ctx, call) => gate.check(ctx, call);
}

/**
 * Which model arbitrates: `inherit`, the child watchdog's; a classifier Pi knows, that classifier;
 * any other reference, that chat model (one Pi does not know denies every ask, as no model does).
 */
function arbiterModel(
	ctx: Ctx,
	model: string,
	threshold: number,
	inherited: () => ReviewerChoice,
): { choice: ReviewerChoice; classifier?: { ref: string; threshold: number } } {
	if (model === "inherit") return { choice: inherited() };
	const parsed = parseModelRef(model);
	if (!parsed.ok)
		return { choice: { kind: "configured", thinking: "off", problem: `permissions.model: ${parsed.error}` } };
	const { provider, id } = parsed.ref;
	const registry = ctx.modelRegistry as Partial<Pick<typeof ctx.modelRegistry, "findOfType">>;
	if (registry.findOfType?.("classifier", provider, id))
		return { choice: inherited(), classifier: { ref: `${provider}/${id}`, threshold } };
	return { choice: { kind: "configured", provider, id, thinking: parsed.ref.thinking ?? "off" } };
}
