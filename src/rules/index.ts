// Launch rules (`rules.roleModels`): which models each child role may run on, judged before a
// child starts, with no model call. The pure judgement (decisions, the blocked launch's error,
// the warned launch's findings) and the status view of the last decision.
// Other folders import from here; files inside the folder import each other directly.
export {
	blockedText,
	checkLaunch,
	decisionLine,
	judgeTarget,
	type LaunchRules,
	type LaunchTarget,
	type LaunchVerdict,
	type RoleModelRule,
	type RuleDecision,
	ruleCount,
	type RuleOutcome,
	targetRefs,
	warnFindings,
} from "./launch-rules.ts";
export { LaunchRuleWatch, type RememberedDecision } from "./rule-watch.ts";
