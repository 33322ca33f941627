// The launch rules at the one point every launch passes (foreground, background; one child,
// parallel tasks, a chain) once each child's real model is known and before anything starts:
// every child is judged first, each decision goes to history and status, a blocked launch
// throws (the tool's error; nothing started), a warned one hands its findings to the sink.
// Rules apply whether reviews are on or off; settings with errors refuse the launch, since
// the rules they held cannot be read.
import { clampThinkingLevel } from "@earendil-works/pi-ai";
import type { Api, Model } from "@earendil-works/pi-ai";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { makeFinding } from "../findings/index.ts";
import { blockedText, checkLaunch, type LaunchTarget, warnFindings } from "../rules/index.ts";
import type { WatchdogSession } from "../session/index.ts";

/** One child as the rules see it: its label, its role, the model and thinking it resolved to. */
export interface CheckedChild {
	label: string;
	role: string;
	model: Model<Api>;
	thinking: string;
}

/** Judges the launch; throws when it may not start. */
export function enforceLaunchRules(watchdog: WatchdogSession, ctx: ExtensionContext, runId: string, children: readonly CheckedChild[]): void {
	const resolved = watchdog.settings(ctx);
	if (resolved.errors.length) {
		const first = resolved.errors[0];
		throw new Error(
			`Not launched: the watchdog settings have ${resolved.errors.length} error${resolved.errors.length > 1 ? "s" : ""}, so the launch rules in them cannot be checked. First: ${first.origin}: ${first.message}. Fix the settings (/subagents-watchdog status lists every error), then launch again.`,
		);
	}
	const rules = resolved.settings.rules;
	const targets: LaunchTarget[] = children.map((c) => ({ label: c.label, role: c.role, provider: c.model.provider, id: c.model.id, thinking: runsAt(c.model, c.thinking) }));
	const verdict = checkLaunch(rules, targets);
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
	watchdog.launchRules.remember(verdict, runId);
	if (verdict.blocked) throw new Error(blockedText(verdict));
	if (verdict.broken.length) {
		const findings = warnFindings(verdict.broken).map((f) => makeFinding(f, "rules"));
		watchdog.sink.duringRun(ctx, findings, resolved.settings, { run: runId });
	}
}

/** The thinking level the child really runs at: Pi lowers one the model does not support. */
function runsAt(model: Model<Api>, thinking: string): string {
	try {
		return clampThinkingLevel(model, thinking as never);
	} catch {
		return thinking;
	}
}
