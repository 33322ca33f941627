// The child policy keys pi-subagents users keep in Pi's settings under `subagents` (beside our
// `subagents.watchdog`): `disableBuiltins`, `agentOverrides.<name>.{disabled, tools}` and
// `modelScope`. They are agent overrides and launch rules by other names, so they are applied
// with the same meaning, each settings file on its own: a project's file can only add limits
// (disable, narrow tools, a further scope), never lift the user's. A key we do not carry out is
// never skipped in silence: the launch of that agent is refused, naming the key and the file.
// Pure: the raw values from the settings files in, an agent or a verdict out.
import type { ChildPolicyLayer } from "../settings/index.ts";
import { compileStarGlob, isPlainObject } from "../util/index.ts";
import { type AgentDefinition, effectiveTools } from "./agent-file.ts";

const OVERRIDE_KEYS = new Set(["disabled", "tools"]);

/** The agent after every layer's overrides, or why it may not be launched. */
export function applyAgentOverrides<A extends Pick<AgentDefinition, "name" | "source" | "tools" | "excludeTools">>(
	agent: A,
	layers: readonly ChildPolicyLayer[] = [],
): { agent: A } | { error: string } {
	let current = agent;
	for (const layer of layers) {
		const at = (key: string) => `subagents.${key} in ${layer.origin}`;
		if (layer.disableBuiltins !== undefined) {
			if (typeof layer.disableBuiltins !== "boolean")
				return {
					error: `${at("disableBuiltins")} must be true or false; got ${JSON.stringify(layer.disableBuiltins)}`,
				};
			if (layer.disableBuiltins && current.source === "package")
				return {
					error:
						`"${agent.name}" is a built-in agent and ${at("disableBuiltins")} is true; launch ` +
						`one of your own agents instead`,
				};
		}
		if (layer.agentOverrides === undefined) continue;
		if (!isPlainObject(layer.agentOverrides))
			return { error: `${at("agentOverrides")} must be an object keyed by agent name` };
		if (!Object.hasOwn(layer.agentOverrides, agent.name)) continue;
		const key = `agentOverrides.${agent.name}`;
		const override = layer.agentOverrides[agent.name];
		if (!isPlainObject(override)) return { error: `${at(key)} must be an object` };
		const unsupported = Object.keys(override).filter((k) => !OVERRIDE_KEYS.has(k));
		if (unsupported.length) {
			return {
				error:
					`${unsupported.map((k) => at(`${key}.${k}`)).join(", ")}: not supported by pi-watchdog ` +
					`(only disabled and tools are); put ${unsupported.length > 1 ? "them" : "it"} ` +
					`in the agent file, or remove ${unsupported.length > 1 ? "them" : "it"}, so the ` +
					`agent runs as configured`,
			};
		}
		if (override.disabled !== undefined) {
			if (typeof override.disabled !== "boolean") return { error: `${at(`${key}.disabled`)} must be true or false` };
			if (override.disabled) return { error: `"${agent.name}" is disabled by ${at(`${key}.disabled`)}` };
		}
		if (override.tools !== undefined) {
			const tools = toolList(override.tools);
			if (typeof tools === "string") return { error: `${at(`${key}.tools`)} ${tools}` };
			if (layer.source === "project") {
				const had = new Set(effectiveTools(current));
				const extra = (tools ?? effectiveTools({})).filter((t) => !had.has(t));
				if (extra.length)
					return {
						error:
							`${at(`${key}.tools`)} adds tools the agent does not have (${extra.join(", ")}); ` +
							`a project's settings can narrow an agent's tools, never widen them`,
					};
			}
			const next = { ...current };
			if (tools === undefined) delete next.tools;
			else next.tools = tools;
			current = next;
		}
	}
	return { agent: current };
}

/** `"inherit"` (the defaults: undefined), a list, or a comma-separated line; the reason as a string otherwise. */
function toolList(value: unknown): string[] | undefined | string {
	if (value === "inherit") return undefined;
	const items = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : undefined;
	if (!items || items.some((t) => typeof t !== "string"))
		return `must be a list of tool names, a comma-separated line, or "inherit"; got ${JSON.stringify(value)}`;
	return [...new Set(items.map((t: string) => t.trim()).filter(Boolean))];
}

export interface ScopeTarget {
	role: string;
	provider: string;
	id: string;
	/** The launch named the model itself (not the agent file or the parent's model). */
	explicit: boolean;
}

export interface ScopeVerdict {
	decision: "allowed" | "warned" | "blocked";
	/** Why, naming the key and the file (absent when allowed). */
	reason?: string;
}

interface Scope {
	enforce?: boolean;
	strict?: boolean;
	allow?: string[];
}

/**
 * `subagents.modelScope` of each file, as pi-subagents means it: with `enforce`, the child's
 * `provider/id` must match the file's `allow` (when it has one) and the role's
 * `agents.<role>.allow`; `*` is the wildcard, case does not count, `inherit` is the parent's
 * model. Out of scope is blocked when `strict` is on or the launch named the model itself,
 * else warned. A broken scope blocks: its limits cannot be read.
 */
export function checkModelScope(
	layers: readonly ChildPolicyLayer[],
	target: ScopeTarget,
	parentModel: { provider: string; id: string } | undefined,
): ScopeVerdict {
	const ref = `${target.provider}/${target.id}`;
	let warned: string | undefined;
	for (const layer of layers) {
		if (layer.modelScope === undefined) continue;
		const at = `subagents.modelScope in ${layer.origin}`;
		const scope = readScope(layer.modelScope);
		if (typeof scope === "string") return { decision: "blocked", reason: `${at}: ${scope}` };
		const role = scope.agents && Object.hasOwn(scope.agents, target.role) ? scope.agents[target.role] : undefined;
		const lists: Array<{ allow: string[]; strict: boolean; key: string }> = [];
		if (scope.enforce && scope.allow?.length)
			lists.push({ allow: scope.allow, strict: scope.strict === true, key: "allow" });
		if (role?.allow !== undefined && (role.enforce ?? scope.enforce))
			lists.push({
				allow: role.allow,
				strict: (role.strict ?? scope.strict) === true,
				key: `agents.${target.role}.allow`,
			});
		for (const list of lists) {
			if (list.allow.some((p) => scopeMatch(p, ref, parentModel))) continue;
			const reason =
				`${target.role} on ${ref} is outside ${at} (${list.key}: ` +
				`${list.allow.map((p) => JSON.stringify(p)).join(", ") || "empty"})`;
			if (list.strict || target.explicit) return { decision: "blocked", reason };
			warned ??= reason;
		}
	}
	return warned ? { decision: "warned", reason: warned } : { decision: "allowed" };
}

function scopeMatch(pattern: string, ref: string, parentModel: { provider: string; id: string } | undefined): boolean {
	// pi-subagents' `scoped` is the parent's scoped models, the parent's model when there is no scope list.
	if (pattern === "inherit" || pattern === "scoped")
		return parentModel !== undefined && `${parentModel.provider}/${parentModel.id}` === ref;
	const glob = compileStarGlob(pattern.toLowerCase());
	return glob.ok && glob.matches(ref.toLowerCase());
}

function readScope(value: unknown): (Scope & { agents?: Record<string, Scope> }) | string {
	const one = (v: unknown, where: string): Scope | string => {
		if (!isPlainObject(v)) return `${where} must be an object with enforce, strict and allow`;
		for (const key of ["enforce", "strict"] as const)
			if (v[key] !== undefined && typeof v[key] !== "boolean") return `${where}.${key} must be true or false`;
		if (v.allow !== undefined && !(Array.isArray(v.allow) && v.allow.every((p) => typeof p === "string" && p.trim())))
			return `${where}.allow must be a list of model patterns`;
		return {
			...(v.enforce !== undefined ? { enforce: v.enforce as boolean } : {}),
			...(v.strict !== undefined ? { strict: v.strict as boolean } : {}),
			...(v.allow !== undefined ? { allow: (v.allow as string[]).map((p) => p.trim()) } : {}),
		};
	};
	const top = one(value, "modelScope");
	if (typeof top === "string") return top;
	const raw = (value as Record<string, unknown>).agents;
	const agents: Record<string, Scope> = {};
	if (raw !== undefined) {
		if (!isPlainObject(raw)) return "modelScope.agents must be an object keyed by agent name";
		for (const [name, v] of Object.entries(raw)) {
			const scope = one(v, `modelScope.agents.${name}`);
			if (typeof scope === "string") return scope;
			agents[name] = scope;
		}
	}
	const anyList = Boolean(top.allow?.length) || Object.values(agents).some((a) => a.allow?.length);
	if ((top.enforce || Object.values(agents).some((a) => a.enforce)) && !anyList)
		return "enforce is true but no allow list names a model; add one, or set enforce to false";
	return { ...top, agents };
}
