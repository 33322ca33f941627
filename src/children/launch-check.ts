// The launch rules at the one point every launch passes (foreground, background; one child,
// parallel tasks, a chain) once each child's real model is known and before anything starts:
// every child is judged first, each decision goes to history and status, a blocked launch
// throws (the tool's error; nothing started), a warned one hands its findings to the sink.
// Rules apply whether reviews are on or off; settings with errors refuse the launch, since
// the rules they held cannot be read.
import { clampThinkingLevel } from "@earendil-works/pi-ai";
import type { Api, Model } from "@earendil-works/pi-ai";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type Finding, makeFinding } from "../findings/index.ts";
import { blockedText, checkLaunch, type LaunchTarget, warnFindings } from "../rules/index.ts";
import type { WatchdogSession } from "../session/index.ts";
import type { ChildPolicyLayer } from "../settings/index.ts";
import { checkModelScope } from "./agent-policy.ts";

/** One child as the rules see it: its label, its role, the model and thinking it resolved to. */
export interface CheckedChild {
	label: string;
	role: string;
	model: Model<Api>;
	thinking: string;
	/** The launch named the model itself (pi-subagents' model scope blocks such a child outright). */
	explicit?: boolean;
}

/** Judges the launch; throws when it may not start. */
export function enforceLaunchRules(
	watchdog: WatchdogSession,
	ctx: ExtensionContext,
	runId: string,
	children: readonly CheckedChild[],
): void {
	const resolved = watchdog.settings(ctx);
	if (resolved.errors.length) {
		const first = resolved.errors[0];
		throw new Error(
			`Not launched: the watchdog settings have ${resolved.errors.length} ` +
				`error${resolved.errors.length > 1 ? "s" : ""}, ` +
				`so the launch rules in them cannot be checked. First: ${first.origin}: ${first.message}. ` +
				`Fix the settings (/subagents-watchdog status lists every error), then launch again.`,
		);
	}
	const scoped = enforceModelScope(watchdog, ctx, runId, children, resolved.childPolicy ?? []);
	const rules = resolved.settings.rules;
	const targets: LaunchTarget[] = children.map((c) => ({
		label: c.label,
		role: c.role,
		provider: c.model.provider,
		id: c.model.id,
		thinking: runsAt(c.model, c.thinking),
	}));
	const verdict = checkLaunch(rules, targets);
	if (scoped.length && !verdict.blocked) watchdog.deliver(ctx, scoped, resolved.settings, { run: runId });
	if (!verdict.decisions.length) return;
	for (const d of verdict.decisions) {
		watchdog.recordHistory(ctx, {
			kind: "launch-rule",
			source: "rules",
			role: d.role,
			run: runId,
			label: d.label,
			model: d.model,
			rule: d.rule,
			action: d.action,
			decision: d.decision,
			started: !verdict.blocked,
			...(d.note ? { note: d.note } : {}),
		});
	}
	watchdog.rememberLaunch(verdict, runId);
	if (verdict.blocked) throw new Error(blockedText(verdict));
	if (verdict.broken.length) {
		const findings = warnFindings(verdict.broken).map((f) => makeFinding(f, "rules"));
		watchdog.deliver(ctx, findings, resolved.settings, { run: runId });
	}
}

/**
 * pi-subagents' `subagents.modelScope` (agent-policy.ts): a blocked child stops the whole launch
 * before anything starts; a warned one gives a finding, as a warned launch rule does.
 */
function enforceModelScope(
	watchdog: WatchdogSession,
	ctx: ExtensionContext,
	runId: string,
	children: readonly CheckedChild[],
	layers: ChildPolicyLayer[],
): Finding[] {
	if (!layers.some((l) => l.modelScope !== undefined)) return [];
	const parent = ctx.model ? { provider: ctx.model.provider, id: ctx.model.id } : undefined;
	const judged = children.map((c) => ({
		c,
		v: checkModelScope(
			layers,
			{ role: c.role, provider: c.model.provider, id: c.model.id, explicit: c.explicit === true },
			parent,
		),
	}));
	const broken = judged.filter((j) => j.v.decision !== "allowed");
	const blocked = broken.some((j) => j.v.decision === "blocked");
	for (const { c, v } of broken) {
		const model = `${c.model.provider}/${c.model.id}`;
		watchdog.recordHistory(ctx, {
			kind: "launch-rule",
			source: "rules",
			role: c.role,
			run: runId,
			label: c.label,
			model,
			rule: v.reason ?? "",
			action: v.decision === "blocked" ? "block" : "warn",
			decision: v.decision,
			started: !blocked,
		});
	}
	if (blocked) {
		const lines = broken.filter((j) => j.v.decision === "blocked").map((j) => `- ${j.v.reason}`);
		throw new Error(
			[
				`Not launched: the model scope does not allow ${lines.length === 1 ? "this child" : "these children"}, ` +
					`so nothing was started.`,
				...lines,
				"Launch on a model the scope allows (or leave the model out when the agent's " +
					"own is in scope), or ask the user to change the scope.",
			].join("\n"),
		);
	}
	return broken.map(({ c, v }) =>
		makeFinding(
			{
				summary: `Model scope: ${c.role} on ${c.model.provider}/${c.model.id} is outside it`,
				evidence:
					`${v.reason}. The model came from the agent file or the parent, and the scope ` +
					`is not strict, so the launch went on.`,
				recommendedAction:
					`Weigh ${c.label}'s results with that in mind; launch ${c.role} on a model in ` +
					`scope next time, or ask the user.`,
				importance: "high",
				severity: "concern",
				category: "missed-constraint",
			},
			"rules",
		),
	);
}

/** The thinking level the child really runs at: Pi lowers one the model does not support. */
function runsAt(model: Model<Api>, thinking: string): string {
	try {
		return clampThinkingLevel(model, thinking as never);
	} catch {
		return thinking;
	}
}
