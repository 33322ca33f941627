// Child tool permissions: the global rules file and an agent's frontmatter resolved into one
// policy at launch (refused when broken), the gate a child installs only when its policy can
// ask or deny, the arbiter (one model call on the child watchdog model), argument redaction,
// and the history line of every step.
// Other folders import from here; files inside the folder import each other directly.
export {
	askArbiter,
	buildAskInput,
	DECISION_PARAMS,
	DECISION_TOOL_NAME,
	readDecision,
	type ArbiterOutcome,
	type AskRequest,
} from "./arbiter.ts";
export { type DeniedAsk, UserAllowances } from "./allowances.ts";
export { permissionLine, type PermissionLine } from "./audit.ts";
export { childPolicy, permissionConfigPath, readGlobalRules, type GlobalRules } from "./config.ts";
export {
	PermissionGate,
	recentCalls,
	type ArbiterSettings,
	type GateCall,
	type GateCtx,
	type GateDeps,
	type GateUser,
	type GateVerdict,
} from "./gate.ts";
export { PREVIEW_CHARS, previewArguments, redactText } from "./redact.ts";
export {
	BASH,
	gates,
	layerPolicy,
	NEVER_GATED,
	RuleMatcher,
	ruleSetProblems,
	type Permission,
	type PermissionPolicy,
	type PermissionRule,
	type RuleSet,
	under,
} from "./rules.ts";
