// Launch rules: which models a child role may run on (`rules.roleModels.<role>.{allow, deny,
// note}`), judged before anything starts, with no model call. Each child is judged on the
// model it would really run on, as `provider/id:thinking` and as bare `provider/id`; a deny
// pattern that matches either wins; a role with an allow list runs only on what it matches;
// a role with only deny runs on everything else. Pure: settings and launch targets in,
// decisions and their texts out.
import { compileStarGlob, type StarGlob } from "../util/index.ts";

export interface RoleModelRule {
	allow?: string[];
	deny?: string[];
	note?: string;
}

export interface LaunchRules {
	action: "warn" | "block";
	roleModels: Record<string, RoleModelRule>;
}

/** One child about to start: its label in the launch, its role (agent name) and its resolved model. */
export interface LaunchTarget {
	label: string;
	role: string;
	provider: string;
	id: string;
	/** The thinking level it would run at ("off" included). */
	thinking: string;
}

export type RuleOutcome = "allowed" | "warned" | "blocked";

export interface RuleDecision {
	label: string;
	role: string;
	/** `provider/id:thinking`, as matched. */
	model: string;
	decision: RuleOutcome;
	action: LaunchRules["action"];
	/** What decided it, e.g. `rules.roleModels.worker.deny "openai/*"`. */
	rule: string;
	note?: string;
}

export interface LaunchVerdict {
	/** One per target whose role has a rule, in launch order. */
	decisions: RuleDecision[];
	/** `block` and some target broke its rule: nothing may start. */
	blocked: boolean;
	/** Targets that broke their rule (warned or blocked). */
	broken: RuleDecision[];
}

/** The model names a target is matched under. */
export function targetRefs(t: Pick<LaunchTarget, "provider" | "id" | "thinking">): { full: string; bare: string } {
	const bare = `${t.provider}/${t.id}`;
	return { full: `${bare}:${t.thinking || "off"}`, bare };
}

type Globs = Map<string, StarGlob>;

/** The first pattern of `patterns` matching either name, or the first that cannot be compiled. */
function firstMatch(
	patterns: readonly string[],
	names: string[],
	globs: Globs,
): { pattern: string; invalid?: string } | undefined {
	for (const pattern of patterns) {
		let glob = globs.get(pattern);
		if (!glob) {
			glob = compileStarGlob(pattern);
			globs.set(pattern, glob);
		}
		if (!glob.ok) return { pattern, invalid: glob.error };
		if (names.some((n) => glob.matches(n))) return { pattern };
	}
	return undefined;
}

/**
 * Judges one target against its role's rule; undefined when the role has none. `globs`: compiled patterns,
 * shared by a launch's targets.
 */
export function judgeTarget(
	rules: LaunchRules,
	target: LaunchTarget,
	globs: Globs = new Map(),
): RuleDecision | undefined {
	const rule = Object.hasOwn(rules.roleModels, target.role) ? rules.roleModels[target.role] : undefined;
	if (!rule || (rule.allow === undefined && rule.deny === undefined)) return undefined;
	const { full, bare } = targetRefs(target);
	const at = `rules.roleModels.${target.role}`;
	const base = {
		label: target.label,
		role: target.role,
		model: full,
		action: rules.action,
		...(rule.note?.trim() ? { note: rule.note.trim() } : {}),
	};
	const broken = (why: string): RuleDecision => ({
		...base,
		decision: rules.action === "block" ? "blocked" : "warned",
		rule: why,
	});
	const denied = firstMatch(rule.deny ?? [], [full, bare], globs);
	// A pattern that cannot be read is no permission: the launch is judged as breaking the rule.
	if (denied?.invalid) return broken(`${at}.deny ${JSON.stringify(denied.pattern)} (unusable: ${denied.invalid})`);
	if (denied) return broken(`${at}.deny ${JSON.stringify(denied.pattern)}`);
	if (rule.allow !== undefined) {
		const allowed = firstMatch(rule.allow, [full, bare], globs);
		if (allowed?.invalid)
			return broken(`${at}.allow ${JSON.stringify(allowed.pattern)} (unusable: ${allowed.invalid})`);
		if (!allowed)
			return broken(
				`${at}.allow (` +
					(rule.allow.length
						? `none of ${rule.allow.map((p) => JSON.stringify(p)).join(", ")} matches)`
						: "empty: nothing is allowed)"),
			);
		return { ...base, decision: "allowed", rule: `${at}.allow ${JSON.stringify(allowed.pattern)}` };
	}
	return { ...base, decision: "allowed", rule: `${at}.deny (no pattern matches)` };
}

/** Judges every target of one launch; with `block`, one broken rule stops the whole launch. */
export function checkLaunch(rules: LaunchRules, targets: readonly LaunchTarget[]): LaunchVerdict {
	const globs: Globs = new Map();
	const decisions = targets.map((t) => judgeTarget(rules, t, globs)).filter((d): d is RuleDecision => d !== undefined);
	const broken = decisions.filter((d) => d.decision !== "allowed");
	return { decisions, blocked: broken.some((d) => d.decision === "blocked"), broken };
}

/** How many roles have a rule that can decide something. */
export function ruleCount(rules: LaunchRules): number {
	return Object.values(rules.roleModels).filter((r) => r.allow !== undefined || r.deny !== undefined).length;
}

/** One broken rule in words: `worker on faux/m:high breaks rules.roleModels.worker.deny "faux/*"`. Note: … */
export function decisionLine(d: RuleDecision): string {
	return (
		`${d.label === d.role ? d.role : `${d.label} (${d.role})`} on ${d.model} breaks ` +
		`${d.rule}${d.note ? `. Note: ${d.note}` : ""}`
	);
}

/** The tool error of a blocked launch. */
export function blockedText(verdict: LaunchVerdict): string {
	const lines = verdict.broken.map((d) => `- ${decisionLine(d)}`);
	return [
		`Not launched: a launch rule blocks ` +
			`${verdict.broken.length === 1 ? "this child" : `${verdict.broken.length} of these children`} ` +
			`(rules.action is block), so nothing was started.`,
		...lines,
		"Launch on a model the rule allows, or ask the user to change the rule.",
	].join("\n");
}

/**
 * What a warned launch tells the orchestrating model, as a finding: one per rule and model,
 * the children it covers named together. High importance: a warning the model never sees
 * would be no warning.
 */
export function warnFindings(broken: readonly RuleDecision[]): Array<{
	summary: string;
	evidence: string;
	recommendedAction: string;
	importance: "high";
	severity: "concern";
	category: "missed-constraint";
}> {
	const groups = new Map<string, RuleDecision[]>();
	for (const d of broken)
		groups.set(`${d.role}\n${d.model}\n${d.rule}`, [...(groups.get(`${d.role}\n${d.model}\n${d.rule}`) ?? []), d]);
	return [...groups.values()].map((group) => {
		const d = group[0];
		const who = group.map((g) => g.label).join(", ");
		return {
			summary: `Launch rule broken: ${d.role} on ${d.model} (${d.rule})`,
			evidence:
				`${who} started on ${d.model}; ${d.rule}.${d.note ? ` Note: ${sentence(d.note)}` : ""} ` +
				`rules.action is warn, so the launch went on.`,
			recommendedAction:
				`Weigh ${group.length === 1 ? "this child's" : "these children's"} results with ` +
				`that in mind; launch ${d.role} on a model the rule allows next time, or ask the user.`,
			importance: "high" as const,
			severity: "concern" as const,
			category: "missed-constraint" as const,
		};
	});
}

function sentence(text: string): string {
	return /[.!?]$/.test(text) ? text : `${text}.`;
}
