// Permission rules: checking one rule set (the global config's or an agent's frontmatter),
// layering the agent's over the global one, and deciding one tool name. Pure.
//
// How a tool name is decided, layer by layer; inside one layer the most specific matching rule
// wins: an exact tool name beats any glob; among globs, the one with more literal (non-wildcard)
// characters wins; on a tie the stricter value wins (deny, then ask, then allow).
// - The global config's rule (none: allow).
// - A user or package agent file's rule: one naming the tool exactly replaces the global
//   decision, so an explicit `write: allow` lifts a global `write: deny` (both are the user's own
//   files); a glob (`*`, `mcp_*`) can only make it stricter, so a wildcard never lifts a global rule.
// - A project agent file's rule (and a project agent standing in for a user agent of the same
//   name): only ever stricter, whatever it names. The project never loosens the user's rules. Globs are
// minimatch patterns (`*`, `?`, `[...]`), anchored
// and case-sensitive; braces, extglobs and negation are off, and patterns are short, so a
// match is cheap whatever name it is asked about.
import { Minimatch } from "minimatch";

export type Permission = "allow" | "ask" | "deny";
export const PERMISSIONS: readonly Permission[] = ["allow", "ask", "deny"];

/** Tools that reach the parent or the user: never gated, and a rule naming one is refused. */
export const NEVER_GATED: ReadonlySet<string> = new Set(["contact_supervisor", "subagent_supervisor", "intercom"]);
/** Bash policy is a command-level guard's business, not a tool-name rule's. */
export const BASH = "bash";

export const MAX_PATTERN_CHARS = 100;
export const MAX_RULES = 200;
const MAX_WILDCARDS = 8;
/** Letters, digits, `_ . : -` and the glob characters `* ? [ ] !`. */
const PATTERN_CHARS = /^[A-Za-z0-9_.:*?![\]-]+$/;

export interface PermissionRule {
	pattern: string;
	value: Permission;
	/** Which layer it came from, and the file, for the reason the child sees. */
	origin: "agent" | "global" | "project";
	file: string;
}

/** The rules a child runs under (plain data: it travels to a background runner in spec.json). */
export interface PermissionPolicy {
	rules: PermissionRule[];
	/** The policy of the child that launched this one (a grandchild's): it can only be tightened here. */
	above?: PermissionPolicy;
}

/** A nested child's policy: its own, under the launching child's (the stricter decides each tool). */
export function under(
	own: PermissionPolicy | undefined,
	above: PermissionPolicy | undefined,
): PermissionPolicy | undefined {
	if (!above || !gates(above)) return own;
	return { rules: own?.rules ?? [], above };
}

export type RuleSet = Record<string, Permission>;

/** Every problem of one rule set, each naming the rule; empty when it is sound. */
export function ruleSetProblems(rules: Record<string, unknown>): string[] {
	const problems: string[] = [];
	const entries = Object.entries(rules);
	if (entries.length > MAX_RULES) problems.push(`${entries.length} rules, more than the ${MAX_RULES} allowed`);
	for (const [pattern, value] of entries) {
		const problem =
			patternProblem(pattern) ??
			(PERMISSIONS.includes(value as Permission)
				? undefined
				: `the permission must be allow, ask or deny; got ${JSON.stringify(value) ?? String(value)}`);
		if (problem) problems.push(`"${pattern.slice(0, MAX_PATTERN_CHARS)}": ${problem}`);
	}
	return problems;
}

function patternProblem(pattern: string): string | undefined {
	if (!pattern) return "a tool name or glob may not be empty";
	if (pattern.length > MAX_PATTERN_CHARS) return `longer than ${MAX_PATTERN_CHARS} characters`;
	if (pattern === BASH) {
		return (
			"bash cannot be gated by a tool rule: bash policy belongs to a command-level " +
			"guard (for example pi-guard), loaded into the child through the agent's `extensions`"
		);
	}
	if (NEVER_GATED.has(pattern)) return `${pattern} reaches the parent or the user and is never gated; remove the rule`;
	if (!PATTERN_CHARS.test(pattern))
		return "a tool name or glob holds letters, digits, _ . : - and the wildcards * ? [ ] only";
	if ((pattern.match(/[*?]/g)?.length ?? 0) > MAX_WILDCARDS) return `more than ${MAX_WILDCARDS} wildcards`;
	return undefined;
}

type Layer = { rules: RuleSet; file: string } | undefined;

/**
 * The policy of one child: the global rules, a user agent's, a project agent's. Each must be sound (see
 * ruleSetProblems).
 */
export function layerPolicy(global: Layer, agent: Layer, project?: Layer): PermissionPolicy {
	const rules: PermissionRule[] = [];
	for (const [pattern, value] of Object.entries(agent?.rules ?? {}))
		rules.push({ pattern, value, origin: "agent", file: agent?.file ?? "" });
	for (const [pattern, value] of Object.entries(global?.rules ?? {}))
		rules.push({ pattern, value, origin: "global", file: global?.file ?? "" });
	for (const [pattern, value] of Object.entries(project?.rules ?? {}))
		rules.push({ pattern, value, origin: "project", file: project?.file ?? "" });
	return { rules };
}

/**
 * Whether the policy can ever ask or deny: when not, no gate is installed at all. Only a global
 * rule that an agent rule naming the same tool exactly sets to allow does not count.
 */
export function gates(policy: PermissionPolicy | undefined): boolean {
	if (!policy) return false;
	if (gates(policy.above)) return true;
	const lifted = new Set(
		policy.rules.filter((r) => r.origin === "agent" && r.value === "allow" && isExact(r.pattern)).map((r) => r.pattern),
	);
	return policy.rules.some((r) => r.value !== "allow" && !(r.origin === "global" && lifted.has(r.pattern)));
}

function isExact(pattern: string): boolean {
	return !/[*?[\]]/.test(pattern);
}

export interface Decision {
	value: Permission;
	/** The rule that decided; none when nothing matched (allowed by default) or the tool is never gated. */
	rule?: PermissionRule;
}

const STRICTNESS: Record<Permission, number> = { allow: 0, ask: 1, deny: 2 };
const ALLOWED: Decision = { value: "allow" };
/** Distinct tool names remembered; past this the cache starts over (a session uses a few dozen). */
const CACHE_LIMIT = 1000;

interface Compiled {
	rule: PermissionRule;
	exact: boolean;
	literal: number;
	test(name: string): boolean;
}

/** Decides tool names by a policy; each distinct name is decided once and remembered. */
export class RuleMatcher {
	private readonly agent: Compiled[];
	private readonly global: Compiled[];
	private readonly project: Compiled[];
	private readonly above?: RuleMatcher;
	private readonly cache = new Map<string, Decision>();

	constructor(policy: PermissionPolicy) {
		const compile = (rule: PermissionRule): Compiled => {
			const exact = isExact(rule.pattern);
			if (exact) return { rule, exact, literal: rule.pattern.length, test: (name) => name === rule.pattern };
			const glob = new Minimatch(rule.pattern, {
				nobrace: true,
				noext: true,
				nonegate: true,
				nocomment: true,
				noglobstar: true,
				dot: true,
				nocase: false,
			});
			return {
				rule,
				exact,
				literal: rule.pattern.replace(/\[[^\]]*\]|[*?]/g, "").length,
				test: (name) => glob.match(name),
			};
		};
		const of = (origin: PermissionRule["origin"]) => policy.rules.filter((r) => r.origin === origin).map(compile);
		this.agent = of("agent");
		this.global = of("global");
		this.project = of("project");
		if (policy.above) this.above = new RuleMatcher(policy.above);
	}

	decide(toolName: string): Decision {
		const cached = this.cache.get(toolName);
		if (cached) return cached;
		const decision = this.resolve(toolName);
		if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
		this.cache.set(toolName, decision);
		return decision;
	}

	private resolve(toolName: string): Decision {
		if (toolName === BASH || NEVER_GATED.has(toolName) || toolName.length > 256) return ALLOWED;
		const global = best(this.global, toolName);
		let decision: Decision = global ? { value: global.rule.value, rule: global.rule } : ALLOWED;
		const agent = best(this.agent, toolName);
		if (agent)
			decision = agent.exact
				? { value: agent.rule.value, rule: agent.rule }
				: stricter({ value: agent.rule.value, rule: agent.rule }, decision);
		const project = best(this.project, toolName);
		if (project) decision = stricter({ value: project.rule.value, rule: project.rule }, decision);
		// Down the tree rules only tighten: nothing of this child's lifts what the level above set.
		if (this.above) decision = stricter(decision, this.above.decide(toolName));
		return decision;
	}
}

function best(layer: Compiled[], toolName: string): Compiled | undefined {
	let found: Compiled | undefined;
	for (const c of layer) {
		if (!c.test(toolName)) continue;
		if (!found || moreSpecific(c, found)) found = c;
	}
	return found;
}

/** The stricter of two decisions; on a tie the first (the more local rule, which the child is told). */
function stricter(a: Decision, b: Decision): Decision {
	return STRICTNESS[b.value] > STRICTNESS[a.value] ? b : a;
}

function moreSpecific(a: Compiled, b: Compiled): boolean {
	if (a.exact !== b.exact) return a.exact;
	if (a.literal !== b.literal) return a.literal > b.literal;
	return STRICTNESS[a.rule.value] > STRICTNESS[b.rule.value];
}

/** `"edit": "ask" (agent file /…/worker.md)`: how a rule is named to the child and in history. */
export function describeRule(rule: PermissionRule | undefined): string {
	if (!rule) return "no rule";
	const where =
		rule.origin === "agent" ? "agent file" : rule.origin === "project" ? "project agent file" : "global config";
	return `"${rule.pattern}": "${rule.value}" (${where} ${rule.file})`;
}
