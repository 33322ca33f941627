// The parent's side of a foreground launch: find the agents, resolve each child's model, open
// the run folder, give every child our watchdog with a channel back to this session, run them
// (launch.ts), show progress, keep the result on disk, and say what happened. Thin glue over Pi.
import { CONFIG_DIR_NAME, type ExtensionContext, type ExtensionFactory, type ModelRuntime } from "@earendil-works/pi-coding-agent";
import type { ParentChannel, ParentUser } from "../findings/index.ts";
import { present } from "../host/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import type { WatchdogSession } from "../session/index.ts";
import type { ChildAgent, ChildProgress } from "./child-session.ts";
import { childLaunchEnv } from "./launch-env.ts";
import { enforceLaunchRules } from "./launch-check.ts";
import { prepareLaunch, sessionInfo } from "./launch-prepare.ts";
import { runLaunch, type WorktreeOps } from "./launch.ts";
import type { LaunchPlan } from "./launch-plan.ts";
import { type ChildResult, launchDetails, launchText } from "./launch-result.ts";
import { makeRunDir, newRunId, statusWriter, writeJsonAtomic } from "./runs.ts";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { LoadedAgents } from "./agents.ts";
import { effectiveTools, formatAgentError } from "./agent-file.ts";
import { applyAgentOverrides } from "./agent-policy.ts";
import { childPolicy, type PermissionPolicy, readGlobalRules } from "../permissions/index.ts";
import type { ProjectTrust, TrustSnapshot } from "../host/index.ts";
import { piSettingsTrusted } from "../session/index.ts";

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
		const blocking = loaded.errors.filter((e) => (e.names ? e.names.includes(name) && RANK[e.source ?? "project"] >= rank : found && RANK[e.source ?? "project"] > rank));
		if (blocking.length) {
			throw new Error(`Not launched: agent "${name}" cannot be used while ${blocking.length === 1 ? "this agent file or folder has a problem" : "these agent files or folders have problems"}: ${blocking.map(formatAgentError).join("; ")}. Fix ${blocking.length === 1 ? "it" : "them"} (a broken agent file never falls back to another agent of its name), then launch again.`);
		}
	}
	const missing = [...new Set(names.filter((n) => !loaded.agents.has(n)))];
	if (missing.length) {
		const known = [...loaded.agents.keys()].sort();
		const broken = loaded.errors.length ? ` Agent files that did not load: ${loaded.errors.map(formatAgentError).join("; ")}.` : "";
		throw new Error(`unknown agent${missing.length > 1 ? "s" : ""} ${missing.map((m) => `"${m}"`).join(", ")}. Available: ${known.join(", ") || "none"}.${broken}`);
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
		const resolved = childPolicy(global, { name: agent.name, path: agent.path ?? agent.name, permissions: agent.permissions, ...(agent.source ? { source: agent.source } : {}), ...(agent.base ? { base: agent.base } : {}) });
		if (!resolved.ok) throw new Error(resolved.error);
		return resolved.policy;
	});
}

export async function launchForeground(
	deps: LauncherDeps,
	ctx: ExtensionContext,
	asked: LaunchPlan,
	signal: AbortSignal | undefined,
	onUpdate: ((partial: { content: Array<{ type: "text"; text: string }>; details: Record<string, unknown> }) => void) | undefined,
): Promise<LaunchOutput> {
	const { watchdog } = deps;
	const { plan, children: prepared } = await prepareLaunch(deps, ctx, asked, signal);
	const runId = newRunId();
	const labels = prepared.map((c) => c.label);
	// Every child is judged before any starts: a blocked launch leaves no run folder, no session.
	enforceLaunchRules(watchdog, ctx, runId, prepared.map((c) => c.checked));
	const dir = makeRunDir(deps.agentDir, runId);
	// What a child tells or asks the user reaches this session's user (its own UI reaches nobody).
	const user: ParentUser = {
		mode: ctx.mode,
		notify: (text, level) => present(ctx, text, level),
		saved: (path, mutate) => watchdog.ownWrite(path, mutate),
		...(ctx.mode === "tui" && ctx.hasUI ? { ask: (title: string, choices: string[]) => ctx.ui.select(title, choices, { signal }) } : {}),
	};
	const progress = new Map<string, ChildProgress & { step: string; status: string; agent: string }>();
	for (const c of prepared) progress.set(c.label, { step: "", status: "queued", agent: c.agent.name, toolCount: 0, tokens: 0, cost: 0 });
	const session = sessionInfo(ctx);
	const writeStatus = statusWriter(dir, { id: runId, mode: plan.mode, pid: process.pid, parentSession: session.file }, () =>
		[...progress.entries()].map(([label, p]) => ({ label, agent: p.agent, status: p.status, tool: p.tool, toolCount: p.toolCount, tokens: p.tokens, cost: p.cost })),
	);
	const show = () => {
		const text = progressText(runId, progress);
		try {
			onUpdate?.({ content: [{ type: "text", text }], details: { runId, progress: Object.fromEntries(progress) } });
			if (ctx.hasUI) ctx.ui.setStatus("watchdog-children", footer(progress));
		} catch {
			// the session moved on; progress is only a courtesy
		}
		writeStatus("running");
	};
	show();
	const env = childLaunchEnv({
		runId,
		runDir: dir,
		project: ctx.cwd,
		projectTrusted: piSettingsTrusted(watchdog.trust.snapshot, ctx.cwd, CONFIG_DIR_NAME),
		trust: watchdog.trust.snapshot,
		agentDir: deps.agentDir,
		settings: () => watchdog.settings(ctx),
		runtime: (ctx.modelRegistry as unknown as { runtime: ModelRuntime }).runtime,
		session,
		worktrees: deps.worktrees,
		childWatchdog: deps.childWatchdog,
		models: new Map(prepared.map((c) => [c.label, { model: c.resolved, thinking: c.thinking, ...(c.permissions ? { permissions: c.permissions } : {}) }])),
		user,
		onFindings: (label, role, findings) => watchdog.port.findings(findings.map((finding) => ({ finding, role, runId, child: label }))),
		onSettled: (label, state) => watchdog.port.settled(`${runId}/${label}`, state),
	});
	const live = new AbortController();
	const forward = () => live.abort();
	signal?.addEventListener("abort", forward, { once: true });
	const unregister = watchdog.onShutdown(() => live.abort());
	try {
		const { results, notes } = await runLaunch(plan, prepared, env, {
			signal: live.signal,
			onProgress: (label, p) => {
				const before = progress.get(label);
				if (before) progress.set(label, { ...before, ...p, status: "running" });
				show();
			},
			onChildDone: (r) => {
				const before = progress.get(r.label);
				if (before) progress.set(r.label, { ...before, status: r.status, toolCount: r.toolCalls, tokens: r.tokens, cost: r.cost });
				show();
			},
		});
		const all = [...results].sort((a, b) => labels.indexOf(a.label) - labels.indexOf(b.label));
		writeJsonAtomic(join(dir, "result.json"), { id: runId, mode: plan.mode, results: all, notes });
		writeStatus(live.signal.aborted ? "stopped" : "done");
		watchdog.recordHistory(ctx, { kind: "launch", summary: `run ${runId} (${plan.mode}): ${all.map((r) => `${r.label} ${r.status}`).join(", ")}`, outcome: live.signal.aborted ? "stopped" : "done", details: { run: runId } });
		return { text: `Run ${runId}\n${launchText(all, notes)}`, details: { runId, mode: plan.mode, children: launchDetails(all) }, results: all };
	} finally {
		signal?.removeEventListener("abort", forward);
		unregister();
		try {
			if (ctx.hasUI) ctx.ui.setStatus("watchdog-children", undefined);
		} catch {
			// stale context
		}
	}
}

/** "worker" for a lone child; "worker#1", "worker#2" … when there are several. */
export function labelsFor(names: string[]): string[] {
	return names.length === 1 ? names : names.map((n, i) => `${n}#${i + 1}`);
}

function progressText(runId: string, progress: Map<string, ChildProgress & { step: string; status: string; agent: string }>): string {
	const lines = [...progress.entries()].map(([label, p]) => `${label} ${p.step ? `[${p.step}] ` : ""}${p.status}${p.tool ? ` · ${p.tool}` : ""} · ${p.toolCount} tools · ${p.tokens.toLocaleString("en-US")} tokens · $${p.cost.toFixed(4)}`);
	return [`Run ${runId}`, ...lines].join("\n");
}

function footer(progress: Map<string, { status: string }>): string {
	const all = [...progress.values()];
	const running = all.filter((p) => p.status === "running" || p.status === "queued").length;
	return `children: ${running} running, ${all.length - running} finished`;
}
