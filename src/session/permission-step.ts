// The child permission gate as one of the session's tool-call checks. Its arbiter runs on the
// child watchdog's model when that watchdog is on, else on the main watchdog's: a rule that asks
// is answered either way (the user wrote it; the children's switch is about reviews). A
// `permissions.model` setting names another model, or a classifier, for it.
import { chooseReviewer, parseModelRef, type ReviewerChoice, type SessionModelInfo } from "../models/index.ts";
import {
	type DeniedAsk,
	type GateUser,
	gates,
	PermissionGate,
	type PermissionPolicy,
	type UserAllowances,
} from "../permissions/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import type { Ctx, HistoryCtx, HistoryLine, ToolCallCheck } from "./monitor.ts";
import type { WatchdogOptions } from "./options.ts";

export interface PermissionDeps {
	role: string;
	task: string;
	settings(ctx: Ctx): ResolvedSettings;
	parentSettings?: () => ResolvedSettings;
	reviewer(ctx: Ctx): ReviewerChoice;
	sessionModel(ctx: Ctx): SessionModelInfo;
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

/** The gate of a child whose permissions can ask or deny; none otherwise. */
export function sessionPermissionGate(
	options: WatchdogOptions,
	deps: Omit<PermissionDeps, "role" | "task" | "parentSettings" | "user"> & {
		user: { allowances: UserAllowances; path: readonly string[] };
	},
): ToolCallCheck | undefined {
	if (!gates(options.permissions) || !options.permissions) return undefined;
	const { role, task = "", parentSettings } = options;
	const user = gateUser(deps.user.allowances, options, deps.user.path);
	const more = { role, task, user, ...(parentSettings ? { parentSettings } : {}) };
	return permissionCheck({ ...deps, ...more }, options.permissions);
}

export function permissionCheck(deps: PermissionDeps, policy: PermissionPolicy): ToolCallCheck {
	const gate = new PermissionGate(policy, {
		role: deps.role,
		task: deps.task,
		settings: (ctx) => {
			const c = ctx as Ctx;
			const resolved = deps.settings(c);
			const parent = deps.parentSettings?.();
			const inherited = () =>
				resolved.enabled || !parent ? deps.reviewer(c) : chooseReviewer(parent.settings.main, deps.sessionModel(c));
			const { timeoutMs, model, threshold } = resolved.settings.permissions;
			return { enabled: true, timeoutMs, ...arbiterModel(c, model, threshold, inherited) };
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

/** Which model answers `ask` rules, for status: the child watchdogs' when they are on, else the main watchdog's. */
export function arbiterModelText(settings: ResolvedSettings["settings"]): string {
	return settings.children.enabled
		? "ask permissions: the child watchdogs' model"
		: "ask permissions: the main watchdog's model (child watchdogs off)";
}
