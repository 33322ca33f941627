// The global permission rules: `<agentDir>/extensions/subagent/config.json`, read through the
// guarded reader and checked with zod. Other keys of the file belong to others and are left
// alone; inside `permissions` every key must be known, so a typo never leaves a child ungated.
import { join } from "node:path";
import { z } from "zod/mini";
// Also configures zod (settings/schema.ts).
import { parseJson } from "../settings/index.ts";
import { readFileInRoot, userRoot } from "../util/index.ts";
import { gates, layerPolicy, PERMISSIONS, type PermissionPolicy, type RuleSet, ruleSetProblems } from "./rules.ts";

/** Far above any real rules file; a larger one is refused rather than read. */
const CONFIG_MAX_BYTES = 256 * 1024;

export function permissionConfigPath(agentDir: string): string {
	return join(agentDir, "extensions", "subagent", "config.json");
}

const schema = z.object(
	{
		permissions: z.optional(
			z.strictObject(
				{
					rules: z.optional(
						z.record(
							z.string(),
							z.enum(PERMISSIONS as [string, ...string[]], { error: "must be allow, ask or deny" }),
							{ error: "must be an object of tool name or glob to allow, ask or deny" },
						),
					),
				},
				{ error: "must be an object with `rules`" },
			),
		),
	},
	{ error: "must be a JSON object" },
);

export type GlobalRules = { ok: true; rules?: RuleSet; file: string } | { ok: false; file: string; error: string };

/**
 * The global rules, none when the file or its `permissions.rules` is absent, or an error naming the file and
 * the problem.
 */
export function readGlobalRules(agentDir: string): GlobalRules {
	const file = permissionConfigPath(agentDir);
	const fail = (error: string): GlobalRules => ({ ok: false, file, error: `${file}: ${error}` });
	const read = readFileInRoot(file, { root: userRoot(agentDir), maxBytes: CONFIG_MAX_BYTES, overLimit: "refuse" });
	if (read.state === "missing") return { ok: true, file };
	if (read.state === "refused") return fail(read.reason);
	const parsed = parseJson(read.text);
	if (!parsed.ok) return fail(parsed.error);
	const checked = schema.safeParse(parsed.value);
	if (!checked.success) {
		const issue = checked.error.issues[0];
		const where = issue.path.length ? issue.path.map(String).join(".") : "the file";
		const more =
			checked.error.issues.length > 1
				? ` (and ${checked.error.issues.length - 1} more problem${checked.error.issues.length > 2 ? "s" : ""})`
				: "";
		return fail(`${where}: ${issue.message}${more}`);
	}
	const rules = checked.data.permissions?.rules as RuleSet | undefined;
	if (!rules) return { ok: true, file };
	const problems = ruleSetProblems(rules);
	if (problems.length) return fail(`permissions.rules: ${problems.join("; ")}`);
	return { ok: true, rules, file };
}

export interface AgentRulesSource {
	name: string;
	path: string;
	permissions?: Record<string, string>;
	/** A project agent's rules only tighten (see rules.ts). */
	source?: "package" | "user" | "project";
	/** The user or package agent a project agent stands in for: its rules keep their place. */
	base?: { path: string; permissions?: Record<string, string> };
}

/**
 * The policy one child runs under, from the global rules and its agent's frontmatter; undefined
 * when nothing asks or denies (no gate). An error when a rule set is broken: the launch is
 * refused rather than run ungated.
 */
export function childPolicy(
	global: GlobalRules,
	agent: AgentRulesSource,
): { ok: true; policy?: PermissionPolicy } | { ok: false; error: string } {
	if (!global.ok)
		return {
			ok: false,
			error:
				`the permission rules cannot be used (${global.error}); no child runs ungated ` +
				`under a broken rule set, so nothing was launched. Fix the file, then launch again.`,
		};
	const own = agentLayer(agent.name, agent.path, agent.permissions);
	if (typeof own === "string") return { ok: false, error: own };
	const base = agent.base ? agentLayer(agent.name, agent.base.path, agent.base.permissions) : undefined;
	if (typeof base === "string") return { ok: false, error: base };
	const project = agent.source === "project";
	const policy = layerPolicy(
		global.rules ? { rules: global.rules, file: global.file } : undefined,
		project ? base : own,
		project ? own : undefined,
	);
	return { ok: true, ...(gates(policy) ? { policy } : {}) };
}

function agentLayer(
	name: string,
	path: string,
	permissions: Record<string, string> | undefined,
): { rules: RuleSet; file: string } | undefined | string {
	if (!permissions || !Object.keys(permissions).length) return undefined;
	const problems = ruleSetProblems(permissions);
	if (problems.length)
		return `${path}: the permission rules of agent "${name}": ${problems.join("; ")}. Nothing was launched.`;
	return { rules: permissions as RuleSet, file: path };
}
