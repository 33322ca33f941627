// The history line of one permission step (kind "permission"): role and run are added by the
// child's watchdog, session and cwd by the log. Tool, rule, decision, how it was reached, the
// reason, the latency; never the call's arguments, which the line has no field for.
import type { HistoryBase, PermissionEvent } from "../findings/index.ts";
import { oneLine } from "../util/index.ts";
import { describeRule, type PermissionRule } from "./rules.ts";

/** The event as this folder makes it: the log and the child's watchdog fill in the rest. */
export type PermissionLine = Omit<PermissionEvent, keyof HistoryBase>;

export function permissionLine(step: {
	tool: string;
	rule: PermissionRule;
	decision: "approve" | "deny";
	how: PermissionLine["how"];
	reason: string;
	latencyMs: number;
	model?: string;
	failure?: string;
}): PermissionLine {
	return {
		kind: "permission",
		tool: oneLine(step.tool).slice(0, 100),
		rule: describeRule(step.rule),
		decision: step.decision,
		how: step.how,
		reason: oneLine(step.reason),
		latencyMs: Math.max(0, Math.round(step.latencyMs)),
		...(step.model ? { model: step.model } : {}),
		...(step.failure ? { failure: step.failure } : {}),
	};
}
