// The background runner: a detached Node process (the parent's own Node) that runs one launch
// from its run folder and writes what happens there. It builds its own model runtime from the
// agent folder (providers an extension registers in the parent are not here), gives each
// child our watchdog with the parent's settings, takes steer/interrupt/stop from control
// files, and stops when the parent process is gone, so nothing is left running.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { Api, Model } from "@earendil-works/pi-ai";
import { type ExtensionFactory, ModelRuntime } from "@earendil-works/pi-coding-agent";
import type { TrustSnapshot } from "../host/index.ts";
import { parseModelRef } from "../models/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import { type Lineage, readLineage, TreeSlots } from "../session/index.ts";
import type { ChildControls } from "./child-session.ts";
import { childDone, childLaunchEnv } from "./launch-env.ts";
import { failedBeforeStart, type PreparedChild, runLaunch, type WorktreeOps } from "./launch.ts";
import type { LaunchPlan } from "./launch-plan.ts";
import type { ChildResult } from "./launch-result.ts";
import type { ChildWatchdogOptions, LaunchAgent } from "./launcher.ts";
import type { PermissionPolicy } from "../permissions/index.ts";
import { processAlive, readRunJson, statusWriter, writeJsonAtomic } from "./runs.ts";

/** `spec.json`: everything the runner needs, written by the parent before it starts the runner. */
export interface RunnerSpec {
	runId: string;
	plan: LaunchPlan;
	children: Array<{
		label: string;
		step: PreparedChild["step"];
		agent: LaunchAgent;
		model: string;
		thinking: string;
		permissions?: PermissionPolicy;
	}>;
	cwd: string;
	projectTrusted: boolean;
	/** The parent's trust snapshot: each child's is judged from it for the folder it works in. */
	trust?: TrustSnapshot;
	agentDir: string;
	settings: ResolvedSettings;
	parentPid: number;
	/** The launching session's place in the tree (absent from an older parent's spec: the top). */
	lineage?: Lineage;
	sessionDir?: string;
	parentSessionFile?: string;
}

export interface RunnerDeps {
	childWatchdog(options: ChildWatchdogOptions): ExtensionFactory;
	worktrees: WorktreeOps;
}

const CONTROL_POLL_MS = 250;
/** A spec without a snapshot (written by an older parent): nothing of the project's is trusted. */
const UNDECIDED: TrustSnapshot = {
	root: "/",
	decided: false,
	why: "the launch carried no trust decision",
	files: {},
	takenAt: 0,
};
const CONTROL_WAIT_MS = 5_000;

/** Runs the launch in `runDir` to its end; returns the process exit code. */
export async function runBackground(runDir: string, deps: RunnerDeps): Promise<number> {
	const spec = readRunJson(runDir, "spec.json") as RunnerSpec | undefined;
	if (!spec) return 2;
	const progress = new Map(
		spec.children.map((c) => [
			c.label,
			{
				agent: c.agent.name,
				status: "queued",
				tool: undefined as string | undefined,
				toolCount: 0,
				tokens: 0,
				cost: 0,
			},
		]),
	);
	const writeStatus = statusWriter(
		runDir,
		{ id: spec.runId, mode: spec.plan.mode, pid: process.pid, parentSession: spec.parentSessionFile },
		() => [...progress.entries()].map(([label, p]) => ({ label, ...p })),
	);
	writeStatus("running");
	const stop = new AbortController();
	const controls = new Map<string, ChildControls>();
	// Steers and interrupts apply one after another, in the order they were sent: a steer sent
	// before an interrupt is queued before the interrupt lands, so it is what the children do
	// next. A stop waits for nothing.
	let applying: Promise<unknown> = Promise.resolve();
	const apply = async (command: { action?: string; message?: unknown }) => {
		const each = [...controls.values()].map((c) => {
			if (command.action === "steer" && typeof command.message === "string") return c.steer(command.message);
			if (command.action === "interrupt") return c.interrupt();
			return undefined;
		});
		// Bounded: an abort that never settles must not hold the commands after it.
		const settled = Promise.all(each.map((p) => p?.catch(() => {})));
		await Promise.race([settled, new Promise((r) => setTimeout(r, CONTROL_WAIT_MS).unref?.())]);
	};
	const timer = setInterval(() => {
		// The parent is gone (quit or killed): stop, so no runner outlives the session that owns it.
		if (!processAlive(spec.parentPid)) stop.abort();
		for (const command of takeControls(runDir)) {
			if (command.action === "stop") stop.abort();
			else applying = applying.then(() => apply(command));
		}
	}, CONTROL_POLL_MS);
	const onSignal = () => stop.abort();
	process.once("SIGTERM", onSignal);
	process.once("SIGINT", onSignal);
	try {
		const runtime = await ModelRuntime.create({
			authPath: join(spec.agentDir, "auth.json"),
			modelsPath: join(spec.agentDir, "models.json"),
			refreshOnCreate: false,
		});
		await runtime.refresh({ allowNetwork: false });
		const prepared: PreparedChild[] = [];
		const early: ChildResult[] = [];
		const models = new Map<string, { model: Model<Api>; thinking: ThinkingLevel; permissions?: PermissionPolicy }>();
		for (const c of spec.children) {
			const parsed = parseModelRef(c.model);
			const model = parsed.ok ? runtime.getModel(parsed.ref.provider, parsed.ref.id) : undefined;
			const child = { label: c.label, step: c.step, agent: c.agent, model: c.model };
			if (!model) {
				early.push(
					failedBeforeStart(
						child,
						`model ${c.model} is not available to a background run (only providers from models.json ` +
							`and built-in ones are; one an extension registers is not)`,
					),
				);
				continue;
			}
			models.set(c.label, {
				model,
				thinking: c.thinking as ThinkingLevel,
				...(c.permissions ? { permissions: c.permissions } : {}),
			});
			prepared.push(child);
		}
		const env = childLaunchEnv({
			runId: spec.runId,
			runDir,
			project: spec.cwd,
			projectTrusted: spec.projectTrusted,
			trust: spec.trust ?? UNDECIDED,
			agentDir: spec.agentDir,
			settings: () => spec.settings,
			runtime,
			session: { dir: spec.sessionDir, file: spec.parentSessionFile },
			// The parent goes on working in its tree: every writing child gets a worktree.
			isolate: true,
			worktrees: deps.worktrees,
			childWatchdog: deps.childWatchdog,
			models,
			lineage: readLineage(spec.lineage),
			// The run's own share of the concurrency: its tree's descendants, in this process.
			slots: new TreeSlots(() => spec.settings.settings.children.concurrency),
		});
		const { results, notes } = await runLaunch(spec.plan, prepared, env, {
			signal: stop.signal,
			onControls: (label, c) => controls.set(label, c),
			onStart: (label) => {
				const before = progress.get(label);
				if (before) progress.set(label, { ...before, status: "running" });
				writeStatus("running");
			},
			onProgress: (label, p) => {
				const before = progress.get(label);
				if (before)
					progress.set(label, {
						...before,
						status: "running",
						tool: p.tool,
						toolCount: p.toolCount,
						tokens: p.tokens,
						cost: p.cost,
					});
				writeStatus("running");
			},
			onChildDone: (r) => {
				controls.delete(r.label);
				childDone(progress, r);
				writeStatus("running");
			},
		});
		const labels = spec.children.map((c) => c.label);
		const all = [...early, ...results].sort((a, b) => labels.indexOf(a.label) - labels.indexOf(b.label));
		for (const r of early) {
			const before = progress.get(r.label);
			if (before) progress.set(r.label, { ...before, status: "failed" });
		}
		writeJsonAtomic(join(runDir, "result.json"), { id: spec.runId, mode: spec.plan.mode, results: all, notes });
		writeStatus(stop.signal.aborted ? "stopped" : all.every((r) => r.status === "done") ? "done" : "failed");
		return 0;
	} catch (error) {
		writeStatus("failed", error instanceof Error ? error.message : String(error));
		return 1;
	} finally {
		clearInterval(timer);
		process.off("SIGTERM", onSignal);
		process.off("SIGINT", onSignal);
	}
}

/** Control files (`control/<time>-<n>.json`), oldest first; each is taken (removed) once read. */
function takeControls(runDir: string): Array<{ action?: string; message?: unknown }> {
	const dir = join(runDir, "control");
	let names: string[];
	try {
		names = readdirSync(dir)
			.filter((n) => n.endsWith(".json"))
			.sort();
	} catch {
		return [];
	}
	const out: Array<{ action?: string; message?: unknown }> = [];
	for (const name of names) {
		const value = readRunJson(dir, name);
		rmSync(join(dir, name), { force: true });
		if (value) out.push(value as { action?: string; message?: unknown });
	}
	return out;
}
