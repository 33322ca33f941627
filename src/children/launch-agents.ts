// The agents a launch names, made ready to run (the settings' overrides applied, the tool list
// settled, each one's tool permissions), and the types the launcher shares with the launch's
// preparation and environment: here so that those files need not import the launcher.
import type { ExtensionContext, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import type { ParentChannel } from "../findings/index.ts";
import type { ProjectTrust, TrustSnapshot } from "../host/index.ts";
import { childPolicy, type PermissionPolicy, readGlobalRules, type UserAllowances } from "../permissions/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import type { Lineage, TreeSlots, WatchdogSession } from "../session/index.ts";
import { dirname, isAbsolute, resolve } from "node:path";
import { effectiveTools, formatAgentError } from "./agent-file.ts";
import { applyAgentOverrides } from "./agent-policy.ts";
import type { LoadedAgents } from "./agents.ts";
import type { ChildAgent } from "./child-session.ts";
import type { WorktreeOps } from "./launch.ts";
import type { ChildResult } from "./launch-result.ts";

/** An agent as the launcher needs it (the agent file's fields). */
export interface LaunchAgent extends ChildAgent {
	description?: string;
	model?: string;
	thinking?: string;
	/** The agent file (named in permission errors and reasons). */
	path?: string;
	/** The frontmatter's `permission:` rules. */
	permissions?: Record<string, string>;
	/** Where the file came from: a project agent's rules can only tighten. */
	source?: "package" | "user" | "project";
	/** The user or package agent a project agent stands in for (its rules stay in force). */
	base?: { path: string; permissions?: Record<string, string> };
}

export interface ChildWatchdogOptions {
	role: string;
	parent: ParentChannel;
	parentSettings: () => ResolvedSettings;
	runId: string;
	/** The child's tool permissions; absent when nothing asks or denies (no gate). */
	permissions?: PermissionPolicy;
	task?: string;
	/** The parent's folder (see WatchdogOptions.project). */
	project: string;
	/** Trust in the project files of the folder the child works in (see src/session/trust-step.ts). */
	trust?: TrustSnapshot;
	/** The child's place in the tree (see src/session/lineage.ts). */
	lineage?: Lineage;
	/** The tree's concurrency budget, and the child's own slot to lend its children. */
	slots?: TreeSlots;
	lendSlot?: () => { take(signal?: AbortSignal): Promise<void> } | undefined;
	/** The tree's denied asks the user may allow once. */
	allowances?: UserAllowances;
}

export interface LauncherDeps {
	watchdog: WatchdogSession;
	agentDir: string;
	agents(ctx: ExtensionContext, trust: ProjectTrust): LoadedAgents;
	childWatchdog(options: ChildWatchdogOptions): ExtensionFactory;
	worktrees: WorktreeOps;
}

export interface LaunchOutput {
	text: string;
	details: Record<string, unknown>;
	/** A foreground launch's results in full (for the session's port: its sink and the stopped-subtree verifier). */
	results?: ChildResult[];
}

/**
 * The agents a launch names, ready to run. Unknown agents are the caller's mistake: the error
 * lists the agents there are (and files that did not load). A name a broken agent file claims
 * is refused with that file's line and problem, never served by another agent of that name;
 * so is an agent from a folder below one that could not be read whole. The settings' agent
 * overrides apply (agent-policy.ts), then the tool list is settled: the file's (or the
 * defaults), less its `excludeTools`; an empty list is no tools.
 */
export function findAgents(loaded: LoadedAgents, names: string[]): LaunchAgent[] {
	return findDefinitions(loaded, names).map((found) => {
		const applied = applyAgentOverrides(found, loaded.policy);
		if ("error" in applied) throw new Error(`Not launched: ${applied.error}.`);
		const a = applied.agent;
		return {
			...a,
			tools: effectiveTools(a),
			// An agent's extension paths are relative to its file.
			extensions: a.extensions?.map((p) => (isAbsolute(p) ? p : resolve(dirname(a.path), p))),
			subagentOnlyExtensions: a.subagentOnlyExtensions?.map((p) => (isAbsolute(p) ? p : resolve(dirname(a.path), p))),
		};
	});
}

const RANK = { package: 0, user: 1, project: 2 } as const;

function findDefinitions(loaded: LoadedAgents, names: string[]) {
	for (const name of new Set(names)) {
		const found = loaded.agents.get(name);
		const rank = found ? RANK[found.source] : -1;
		// A broken file of this name at the found agent's level or above; or a folder above it not read whole.
		const blocking = loaded.errors.filter((e) =>
			e.names
				? e.names.includes(name) && RANK[e.source ?? "project"] >= rank
				: found && RANK[e.source ?? "project"] > rank,
		);
		if (blocking.length) {
			throw new Error(
				`Not launched: agent "${name}" cannot be used while ` +
					(blocking.length === 1
						? "this agent file or folder has a problem: "
						: "these agent files or folders have problems: ") +
					`${blocking.map(formatAgentError).join("; ")}. Fix ${blocking.length === 1 ? "it" : "them"} ` +
					`(a broken agent file never falls back to another agent of its name), then launch again.`,
			);
		}
	}
	const missing = [...new Set(names.filter((n) => !loaded.agents.has(n)))];
	if (missing.length) {
		const known = [...loaded.agents.keys()].sort();
		const broken = loaded.errors.length
			? ` Agent files that did not load: ${loaded.errors.map(formatAgentError).join("; ")}.`
			: "";
		throw new Error(
			`unknown agent${missing.length > 1 ? "s" : ""} ${missing.map((m) => `"${m}"`).join(", ")}. ` +
				`Available: ${known.join(", ") || "none"}.${broken}`,
		);
	}
	return names.map((n) => loaded.agents.get(n) as NonNullable<ReturnType<LoadedAgents["agents"]["get"]>>);
}

/**
 * Each agent's tool permissions, from the global rules file and its frontmatter; undefined for
 * one that needs no gate. Throws (a tool error, nothing launched) when a rule set is broken.
 */
export function permissionPolicies(agentDir: string, agents: LaunchAgent[]): Array<PermissionPolicy | undefined> {
	const global = readGlobalRules(agentDir);
	return agents.map((agent) => {
		const resolved = childPolicy(global, {
			name: agent.name,
			path: agent.path ?? agent.name,
			permissions: agent.permissions,
			...(agent.source ? { source: agent.source } : {}),
			...(agent.base ? { base: agent.base } : {}),
		});
		if (!resolved.ok) throw new Error(resolved.error);
		return resolved.policy;
	});
}

/** "worker" for a lone child; "worker#1", "worker#2" … when there are several. */
export function labelsFor(names: string[]): string[] {
	return names.length === 1 ? names : names.map((n, i) => `${n}#${i + 1}`);
}
