// Background launches and the actions on runs, from the parent's side: write the run's spec,
// start the runner (the parent's own Node, detached), watch its folder, and when it ends tell
// the parent session (a continuation only when a high finding needs the model). A runner
// that died without a result is `lost`, and its worktrees are cleaned.
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_DIR_NAME, type ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type Lineage, piSettingsTrusted } from "../session/index.ts";
import type { Finding } from "../findings/index.ts";
import { envName } from "../host/index.ts";
import { PACKAGE_DIR } from "../util/index.ts";
import { enforceLaunchRules } from "./launch-check.ts";
import { prepareLaunch, sessionInfo } from "./launch-prepare.ts";
import type { LaunchPlan } from "./launch-plan.ts";
import { type ChildResult, launchFindings, launchText } from "./launch-result.ts";
import type { LauncherDeps, LaunchOutput } from "./launcher.ts";
import type { RunnerSpec } from "./runner.ts";
import {
	isRunId,
	listRuns,
	makeRunDir,
	newRunId,
	processAlive,
	readRunJson,
	readStatus,
	runDir,
	runningBackground,
	type RunStatus,
	statusWriter,
	writeJsonAtomic,
} from "./runs.ts";
import type { SubagentParams } from "./tool-params.ts";

export const RUNNER_SCRIPT = join(PACKAGE_DIR, "bin", "subagent-runner.mjs");
const POLL_MS = 500;
const MAX_WAIT_MS = 10 * 60_000;
const DEFAULT_WAIT_MS = 60_000;
export const SUBAGENT_MESSAGE = "watchdog-subagent";

export async function launchBackground(
	deps: LauncherDeps,
	ctx: ExtensionContext,
	asked: LaunchPlan,
	signal?: AbortSignal,
): Promise<LaunchOutput> {
	const { plan, children: ready } = await prepareLaunch(deps, ctx, asked, signal);
	const children: RunnerSpec["children"] = ready.map((c) => ({
		label: c.label,
		step: c.step,
		agent: c.agent,
		model: `${c.resolved.provider}/${c.resolved.id}`,
		thinking: c.thinking,
		...(c.permissions ? { permissions: c.permissions } : {}),
	}));
	// From the count to the status file below nothing awaits: launches of one turn's parallel tool calls count
	// each other.
	refuseOverCap(deps.agentDir, deps.watchdog.settings(ctx).settings.children.maxBackground);
	const runId = newRunId();
	// Judged here, in the parent: a blocked launch never gets a runner.
	enforceLaunchRules(
		deps.watchdog,
		ctx,
		runId,
		ready.map((c) => c.checked),
	);
	const dir = makeRunDir(deps.agentDir, runId);
	const session = sessionInfo(ctx);
	const spec: RunnerSpec = {
		runId,
		plan,
		children,
		cwd: ctx.cwd,
		projectTrusted: piSettingsTrusted(deps.watchdog.trust.snapshot, ctx.cwd, CONFIG_DIR_NAME),
		trust: deps.watchdog.trust.snapshot,
		agentDir: deps.agentDir,
		settings: deps.watchdog.settings(ctx),
		parentPid: process.pid,
		lineage: deps.watchdog.lineage,
		...(session.dir ? { sessionDir: session.dir } : {}),
		...(session.file ? { parentSessionFile: session.file } : {}),
	};
	writeJsonAtomic(join(dir, "spec.json"), spec);
	const pid = startRunner(dir, deps.agentDir, session.id, deps.watchdog.lineage);
	statusWriter(dir, { id: runId, mode: plan.mode, pid, parentSession: session.file }, () =>
		children.map((c) => ({ label: c.label, agent: c.agent.name, status: "queued", toolCount: 0, tokens: 0, cost: 0 })),
	)("running");
	watch(deps, ctx, runId);
	return {
		text:
			`Run ${runId} started in the background: ${children.map((c) => c.label).join(", ")}. ` +
			`A message arrives here when it ends; meanwhile use subagent {action: "status", ` +
			`id: "${runId}"}, "wait", "steer", "interrupt" or "stop".`,
		details: { runId, mode: plan.mode, async: true, pid },
	};
}

/** Each runner is a whole Node process with its children's sessions: `children.maxBackground` bounds them. */
function refuseOverCap(agentDir: string, max: number): void {
	const running = runningBackground(agentDir);
	if (running.length < max) return;
	const runs = running.length === 1 ? "1 background run is" : `${running.length} background runs are`;
	throw new Error(
		`not launched: ${runs} already running (children.maxBackground is ${max}): ${running.join(", ")}. ` +
			'Wait for one to end (subagent {action: "wait", id}), stop one (subagent {action: ' +
			'"stop", id}), or launch without async.',
	);
}

function startRunner(
	dir: string,
	agentDir: string,
	parentSession: string | undefined,
	lineage: Lineage,
): number | undefined {
	const log = openSync(join(dir, "runner.log"), "a", 0o600);
	try {
		const child = spawn(process.execPath, [RUNNER_SCRIPT, dir], {
			cwd: dir,
			detached: true,
			stdio: ["ignore", log, log],
			env: {
				...process.env,
				[envName("CODING_AGENT_DIR")]: agentDir,
				[envName("SUBAGENT_PARENT_SESSION")]: parentSession ?? "",
				// The process tree carries the depth: a `pi` a background child starts sits below it.
				[envName("SUBAGENT_LINEAGE")]: JSON.stringify({ ...lineage, depth: lineage.depth + 1 }),
			},
		});
		child.unref();
		return child.pid;
	} finally {
		closeSync(log);
	}
}

/** Watches one run until it ends, then delivers its completion to this session. */
function watch(deps: LauncherDeps, ctx: ExtensionContext, runId: string): void {
	const timer = setInterval(() => {
		// A timer's exception would reach Pi's process: everything here is guarded.
		try {
			const end = settle(deps, runId);
			if (!end) return;
			clearInterval(timer);
			unregister();
			deliverCompletion(deps, ctx, runId, end.status, end.results);
		} catch {
			// a stale session (reload, new session) or an unreadable run folder: status still shows the run
			clearInterval(timer);
			unregister();
		}
	}, POLL_MS);
	timer.unref?.();
	// The session ends: its background runs stop with it (the runner also notices the process is gone).
	const unregister = deps.watchdog.onShutdown(() => {
		clearInterval(timer);
		requestControl(deps.agentDir, runId, { action: "stop" });
	});
}

/** The run's end, if it has one: its results, or `lost` when the runner died without them. */
function settle(deps: LauncherDeps, runId: string): { status: RunStatus; results: ChildResult[] } | undefined {
	const dir = runDir(deps.agentDir, runId);
	const status = readStatus(deps.agentDir, runId);
	if (!status) return undefined;
	// An ended run without result.json ended without results: lost (another reader may have said so first, and
	// a `wait` must not sit out its timeout on it) or failed before its children reported.
	if (status.state !== "running") {
		const result = readRunJson(dir, "result.json");
		return { status, results: (result?.results as ChildResult[] | undefined) ?? [] };
	}
	if (!processAlive(status.pid)) {
		const lost: RunStatus = {
			...status,
			state: "lost",
			updatedAt: new Date().toISOString(),
			error: "the runner process ended without a result",
		};
		writeJsonAtomic(join(dir, "status.json"), lost);
		// Only this run's worktrees: the other runs' are still being worked in.
		void deps.worktrees.cleanStale?.(readSpecCwd(dir), dir, () => false).catch(() => {});
		return { status: lost, results: [] };
	}
	return undefined;
}

function readSpecCwd(dir: string): string {
	const spec = readRunJson(dir, "spec.json");
	return typeof spec?.cwd === "string" ? spec.cwd : dir;
}

function deliverCompletion(
	deps: LauncherDeps,
	ctx: ExtensionContext,
	runId: string,
	status: RunStatus,
	results: ChildResult[],
): void {
	const { watchdog } = deps;
	for (const r of results) {
		watchdog.port.findings(r.findings.map((finding: Finding) => ({ finding, role: r.agent, runId, child: r.label })));
		watchdog.port.settled(`${runId}/${r.label}`, r.blockers);
	}
	const text =
		status.state === "lost"
			? `Background run ${runId} was lost: ${status.error ?? "its runner ended without a result"}. ` +
				`Its worktrees were removed.`
			: `Background run ${runId} ended (${status.state})${errorText(status)}.\n${launchText(results)}`;
	// The notice and the children's findings go through this session's sink: only a finding it sends may start a turn.
	const report = {
		notice: { customType: SUBAGENT_MESSAGE, content: text, details: { runId, state: status.state } },
		findings: launchFindings(results),
		details: { run: runId },
	};
	const end = { runId, results: endResults(deps.agentDir, status, results), via: "completion" };
	void watchdog.port.ended(ctx, { ...end, parentSession: status.parentSession }, report);
	watchdog.recordHistory(ctx, {
		kind: "launch",
		summary:
			`background run ${runId} ${status.state}: ` +
			`${results.map((r) => `${r.label} ${r.status}`).join(", ") || "no results"}`,
		outcome: status.state,
		details: { run: runId },
	});
}

/** A run that failed before its children reported says why. */
const errorText = (status: RunStatus) => (status.error ? `: ${status.error}` : "");

/** status, steer, interrupt, stop, wait. */
export async function runAction(
	deps: LauncherDeps,
	ctx: ExtensionContext,
	params: SubagentParams,
	signal: AbortSignal | undefined,
): Promise<{ text: string; details: Record<string, unknown> }> {
	const id = params.id?.trim();
	if (params.action === "status" && !id) return { text: listText(deps.agentDir), details: {} };
	if (!id) throw new Error(`${params.action} needs the run id ("id")`);
	if (!isRunId(id)) throw new Error(`"${id}" is not a run id (they look like 20261201-101502-a3f9c1)`);
	const status = readStatus(deps.agentDir, id);
	if (!status) throw new Error(`no run ${id}; subagent {action: "status"} lists the recent ones`);
	switch (params.action) {
		case "status": {
			const end = settle(deps, id);
			if (end)
				await deps.watchdog.port.ended(ctx, {
					runId: id,
					results: endResults(deps.agentDir, end.status, end.results),
					via: "status",
					parentSession: end.status.parentSession,
				});
			return {
				text: statusText(deps.agentDir, id, end?.status ?? status),
				details: { runId: id, state: status.state },
			};
		}
		case "wait": {
			const limit = Math.min(params.timeoutMs ?? DEFAULT_WAIT_MS, MAX_WAIT_MS);
			const end = await waitFor(deps, id, limit, signal);
			const now = end?.status ?? readStatus(deps.agentDir, id) ?? status;
			if (!end)
				return {
					text:
						`Run ${id} is still running after ${Math.round(limit / 1000)} s.\n` +
						`${statusText(deps.agentDir, id, now)}`,
					details: { runId: id, state: now.state },
				};
			await deps.watchdog.port.ended(ctx, {
				runId: id,
				results: endResults(deps.agentDir, end.status, end.results),
				via: "wait",
				parentSession: end.status.parentSession,
			});
			return {
				text:
					end.status.state === "lost" || !end.results.length
						? statusText(deps.agentDir, id, end.status)
						: `Run ${id} ${end.status.state}.\n${launchText(end.results)}`,
				details: { runId: id, state: end.status.state },
			};
		}
		case "steer":
		case "interrupt":
		case "stop": {
			if (status.state !== "running") throw new Error(`run ${id} is not running (${status.state})`);
			if (status.pid === process.pid)
				throw new Error(`run ${id} runs in the foreground of this session; it ends when its tool call does`);
			if (params.action === "steer" && !params.message?.trim()) throw new Error("steer needs a message");
			requestControl(deps.agentDir, id, {
				action: params.action,
				...(params.action === "steer" ? { message: params.message } : {}),
			});
			return { text: `${params.action} sent to run ${id}.`, details: { runId: id } };
		}
		default:
			throw new Error(`unknown run action ${params.action}`);
	}
}

async function waitFor(
	deps: LauncherDeps,
	id: string,
	limitMs: number,
	signal: AbortSignal | undefined,
): Promise<{ status: RunStatus; results: ChildResult[] } | undefined> {
	const until = Date.now() + limitMs;
	for (;;) {
		const end = settle(deps, id);
		if (end) return end;
		if (signal?.aborted || Date.now() >= until) return undefined;
		await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(1, until - Date.now()))));
	}
}

/** A lost run has no results: its children, as its status names them, ended lost. */
function endResults(agentDir: string, status: RunStatus, results: ChildResult[]): ChildResult[] {
	if (results.length || status.state !== "lost") return results;
	const spec = readRunJson(runDir(agentDir, status.id), "spec.json") as Partial<RunnerSpec> | undefined;
	const taskOf = (label: string) =>
		spec?.children?.find((c) => c.label === label)?.step.task ?? "(the task is in the run's spec.json)";
	return status.children.map((c) => ({
		status: "lost" as never,
		answer: "",
		error: status.error ?? "its runner ended without a result",
		toolCalls: 0,
		tokens: 0,
		cost: 0,
		notices: [],
		label: c.label,
		agent: c.agent,
		task: taskOf(c.label),
		model: "",
		cwd: "",
		findings: [],
		blockers: { blockers: [], stalemate: false },
	}));
}

let controlCounter = 0;
function requestControl(agentDir: string, id: string, command: Record<string, unknown>): void {
	try {
		const dir = join(runDir(agentDir, id), "control");
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		writeJsonAtomic(join(dir, `${Date.now()}-${String(controlCounter++).padStart(6, "0")}.json`), command);
	} catch {
		// the run's folder is gone: it has ended
	}
}

function statusText(agentDir: string, id: string, status: RunStatus): string {
	const lines = [
		`Run ${id}: ${status.state} (${status.mode}), started ${status.startedAt}` +
			(status.error ? ` · ${status.error}` : ""),
	];
	for (const c of status.children)
		lines.push(
			`- ${c.label}: ${c.status}${c.tool ? ` · ${c.tool}` : ""} · ${c.toolCount} tools ` +
				`· ${c.tokens.toLocaleString("en-US")} tokens · $${c.cost.toFixed(4)}`,
		);
	lines.push(`Folder: ${runDir(agentDir, id)}`);
	return lines.join("\n");
}

function listText(agentDir: string): string {
	const ids = listRuns(agentDir).slice(0, 10);
	if (!ids.length) return "No runs yet.";
	return ids
		.map((id) => {
			const s = readStatus(agentDir, id);
			return s
				? `${id}: ${s.state} · ${s.mode} · ${s.children.map((c) => `${c.label} ${c.status}`).join(", ")}`
				: `${id}: (no status)`;
		})
		.join("\n");
}
