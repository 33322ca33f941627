// The parent's side of a foreground launch: find the agents, resolve each child's model, open
// the run folder, give every child our watchdog with a channel back to this session, run them
// (launch.ts), show progress, keep the result on disk, and say what happened. Thin glue over Pi.
import { CONFIG_DIR_NAME, type ExtensionContext, type ModelRuntime } from "@earendil-works/pi-coding-agent";
import type { ParentUser } from "../findings/index.ts";
import { present, waitingReporter } from "../host/index.ts";
import type { ChildProgress } from "./child-session.ts";
import { childDone, childLaunchEnv } from "./launch-env.ts";
import { enforceLaunchRules } from "./launch-check.ts";
import { prepareLaunch, sessionInfo } from "./launch-prepare.ts";
import { runLaunch } from "./launch.ts";
import type { LaunchPlan } from "./launch-plan.ts";
import { launchDetails, launchText } from "./launch-result.ts";
import { makeRunDir, newRunId, statusWriter, writeJsonAtomic } from "./runs.ts";
import { join } from "node:path";
import { piSettingsTrusted } from "../session/index.ts";
import type { LauncherDeps, LaunchOutput } from "./launch-agents.ts";

export { findAgents, labelsFor, permissionPolicies } from "./launch-agents.ts";
export type { ChildWatchdogOptions, LaunchAgent, LauncherDeps, LaunchOutput } from "./launch-agents.ts";

export async function launchForeground(
	deps: LauncherDeps,
	ctx: ExtensionContext,
	asked: LaunchPlan,
	signal: AbortSignal | undefined,
	onUpdate:
		| ((partial: { content: Array<{ type: "text"; text: string }>; details: Record<string, unknown> }) => void)
		| undefined,
): Promise<LaunchOutput> {
	const { watchdog } = deps;
	const { plan, children: prepared } = await prepareLaunch(deps, ctx, asked, signal);
	const runId = newRunId();
	const labels = prepared.map((c) => c.label);
	// Every child is judged before any starts: a blocked launch leaves no run folder, no session.
	enforceLaunchRules(
		watchdog,
		ctx,
		runId,
		prepared.map((c) => c.checked),
	);
	const dir = makeRunDir(deps.agentDir, runId);
	// What a child tells or asks the user reaches this session's user (its own UI reaches nobody).
	// A nested child's user is the main session's, handed down; its own UI reaches nobody.
	const shown = waitingReporter(ctx);
	const user: ParentUser = watchdog.options.parent?.user ?? {
		mode: ctx.mode,
		notify: (text, level) => present(ctx, text, level),
		saved: (path, mutate) => watchdog.ownWrite(path, mutate),
		// The session says it waits while a child waits on the arbiter (a status; in the TUI, Pi's
		// "blocked"; in its live entry, for the fleet view), and while a child's question is the user's.
		waiting: (text) => {
			shown(text);
			watchdog.waits.report(text);
		},
		...(ctx.mode === "tui" && ctx.hasUI
			? {
					ask: (title: string, choices: string[]) =>
						watchdog.waits.on(`waiting on you: ${title}`, () => ctx.ui.select(title, choices, { signal })),
				}
			: {}),
	};
	const progress = new Map<string, ChildProgress & { step: string; status: string; agent: string }>();
	for (const c of prepared)
		progress.set(c.label, { step: "", status: "queued", agent: c.agent.name, toolCount: 0, tokens: 0, cost: 0 });
	const session = sessionInfo(ctx);
	const writeStatus = statusWriter(
		dir,
		{ id: runId, mode: plan.mode, pid: process.pid, parentSession: session.file },
		() =>
			[...progress.entries()].map(([label, p]) => ({
				label,
				agent: p.agent,
				status: p.status,
				tool: p.tool,
				toolCount: p.toolCount,
				tokens: p.tokens,
				cost: p.cost,
			})),
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
		models: new Map(
			prepared.map((c) => [
				c.label,
				{ model: c.resolved, thinking: c.thinking, ...(c.permissions ? { permissions: c.permissions } : {}) },
			]),
		),
		user,
		onFindings: (label, role, findings) =>
			watchdog.port.findings(findings.map((finding) => ({ finding, role, runId, child: label }))),
		onSettled: (label, state) => watchdog.port.settled(`${runId}/${label}`, state),
		lineage: watchdog.lineage,
		slots: watchdog.treeSlots(watchdog.settings(ctx).settings.children.concurrency),
		allowances: watchdog.allowances,
	});
	// A child waiting on its own children lends them its slot of the tree's concurrency.
	const lent = watchdog.options.lendSlot?.();
	const live = new AbortController();
	const forward = () => live.abort();
	signal?.addEventListener("abort", forward, { once: true });
	const unregister = watchdog.onShutdown(() => live.abort());
	try {
		const { results, notes } = await runLaunch(plan, prepared, env, {
			signal: live.signal,
			onStart: (label, step) => {
				const before = progress.get(label);
				if (before) progress.set(label, { ...before, step, status: "running" });
				show();
			},
			onProgress: (label, p) => {
				const before = progress.get(label);
				if (before) progress.set(label, { ...before, ...p, status: "running" });
				show();
			},
			onChildDone: (r) => {
				childDone(progress, r);
				show();
			},
		});
		const all = [...results].sort((a, b) => labels.indexOf(a.label) - labels.indexOf(b.label));
		writeJsonAtomic(join(dir, "result.json"), { id: runId, mode: plan.mode, results: all, notes });
		writeStatus(live.signal.aborted ? "stopped" : "done");
		watchdog.recordHistory(ctx, {
			kind: "launch",
			summary: `run ${runId} (${plan.mode}): ${all.map((r) => `${r.label} ${r.status}`).join(", ")}`,
			outcome: live.signal.aborted ? "stopped" : "done",
			details: { run: runId },
		});
		return {
			text: `Run ${runId}\n${launchText(all, notes)}`,
			details: { runId, mode: plan.mode, children: launchDetails(all) },
			results: all,
		};
	} finally {
		signal?.removeEventListener("abort", forward);
		unregister();
		await lent?.take(signal);
		try {
			if (ctx.hasUI) ctx.ui.setStatus("watchdog-children", undefined);
		} catch {
			// stale context
		}
	}
}

function progressText(
	runId: string,
	progress: Map<string, ChildProgress & { step: string; status: string; agent: string }>,
): string {
	const lines = [...progress.entries()].map(
		([label, p]) =>
			`${label} ${p.step ? `[${p.step}] ` : ""}${p.status}${p.tool ? ` · ${p.tool}` : ""} ` +
			`· ${p.toolCount} tools · ${p.tokens.toLocaleString("en-US")} tokens · $${p.cost.toFixed(4)}`,
	);
	return [`Run ${runId}`, ...lines].join("\n");
}

function footer(progress: Map<string, { status: string }>): string {
	const all = [...progress.values()];
	const running = all.filter((p) => p.status === "running").length;
	const queued = all.filter((p) => p.status === "queued").length;
	const finished = all.length - running - queued;
	return `children: ${running} running, ${queued ? `${queued} queued, ` : ""}${finished} finished`;
}
