// Running a launch plan: children one at a time (a chain, with `{previous}`), or side by side
// up to `children.concurrency` with a git worktree each for those that may write, their
// changes landed back in the parent's tree one at a time. What a child needs from Pi comes in
// through `LaunchEnv`, so the same code runs in the parent and in a background runner.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ChildBlockers, Finding } from "../findings/index.ts";
import {
	type ChildAgent,
	type ChildOutcome,
	type ChildProgress,
	type ChildControls,
	DEFAULT_CHILD_TOOLS,
} from "./child-session.ts";
import { chainTask, type LaunchPlan, type LaunchStep } from "./launch-plan.ts";
import type { BelowRun, ChildResult, Landing } from "./launch-result.ts";

/** The tools we know to change nothing; a child with any other tool may write. */
const READ_ONLY_TOOLS = new Set(["read", "grep", "find", "ls"]);

export function mayWrite(agent: ChildAgent): boolean {
	return (agent.tools?.length ? agent.tools : DEFAULT_CHILD_TOOLS).some((t) => !READ_ONLY_TOOLS.has(t));
}

export interface Worktree {
	dir: string;
	/** Where the child works inside it (the parent's subfolder, when the parent is in one). */
	workDir?: string;
}

export interface WorktreeOps {
	create(cwd: string, dir: string, signal?: AbortSignal): Promise<Worktree>;
	land(wt: Worktree, patchDir: string, name: string, signal?: AbortSignal): Promise<Landing>;
	remove(wt: Worktree): Promise<void>;
	/** Removes worktrees of runs that are no longer alive, then lets git forget them. */
	cleanStale?(cwd: string, runsDir: string, isAlive: (worktreeDir: string) => boolean): Promise<string[]>;
}

/** One child about to start: its step, resolved agent and model, and where its findings go. */
export interface PreparedChild {
	label: string;
	step: LaunchStep;
	agent: ChildAgent;
	model: string;
}

/** What running one child needs; `run` is runChildSession bound to the environment. */
export interface LaunchEnv {
	cwd: string;
	concurrency: number;
	/** Where the run keeps worktrees, patches and partial results. */
	runDir: string;
	worktrees: WorktreeOps;
	/** Every writing child gets a worktree, even alone (a background run: the parent keeps working in its tree). */
	isolate?: boolean;
	run(
		child: PreparedChild,
		task: string,
		cwd: string,
		hooks: { signal: AbortSignal; onProgress(p: ChildProgress): void; onControls(c: ChildControls): void },
	): Promise<ChildOutcome>;
	/** The findings and open blockers the child's watchdog reported so far (kept by the caller's parent channel). */
	findingsOf(label: string): {
		findings: Finding[];
		blockers: ChildBlockers;
		below?: BelowRun[];
		/** Denied calls the user may still allow ("id tool"). */
		pendingAsks?: string[];
	};
}

export interface LaunchHooks {
	signal?: AbortSignal;
	/** A child starts (its session is about to be made): from here its row says running, not queued. */
	onStart?(label: string, step: string): void;
	onProgress?(label: string, progress: ChildProgress & { step: string }): void;
	onChildDone?(result: ChildResult): void;
	onControls?(label: string, controls: ChildControls): void;
}

/** Runs the prepared children by the plan's mode and returns their results in step order. */
export async function runLaunch(
	plan: LaunchPlan,
	children: PreparedChild[],
	env: LaunchEnv,
	hooks: LaunchHooks = {},
): Promise<{ results: ChildResult[]; notes: string[] }> {
	const notes: string[] = [];
	const stop = new AbortController();
	const onAbort = () => stop.abort();
	if (hooks.signal?.aborted) stop.abort();
	hooks.signal?.addEventListener("abort", onAbort, { once: true });
	try {
		if (plan.mode !== "parallel") {
			const results: ChildResult[] = [];
			let previous = "";
			for (const [i, child] of children.entries()) {
				const task = plan.mode === "chain" ? chainTask(child.step.task, previous) : child.step.task;
				const result = await runIsolated(child, task, env, hooks, stop.signal, `${i + 1}/${children.length}`, notes);
				results.push(result);
				hooks.onChildDone?.(result);
				// A chain stops at the first step that did not finish: the next one would build on nothing.
				if (plan.mode === "chain" && result.status !== "done") {
					if (i + 1 < children.length)
						notes.push(
							`The chain stopped after step ${i + 1} (${result.status}); steps ` +
								`${i + 2}–${children.length} ` +
								`did not run.`,
						);
					break;
				}
				previous = result.answer;
			}
			return { results, notes };
		}
		return await runParallel(children, env, hooks, stop.signal, notes);
	} finally {
		hooks.signal?.removeEventListener("abort", onAbort);
	}
}

async function runParallel(
	children: PreparedChild[],
	env: LaunchEnv,
	hooks: LaunchHooks,
	signal: AbortSignal,
	notes: string[],
): Promise<{ results: ChildResult[]; notes: string[] }> {
	const results: ChildResult[] = new Array(children.length);
	const writers = children.filter((c) => mayWrite(c.agent)).length;
	let inTree = !env.isolate && writers <= 1; // a lone writer needs no worktree: nobody else writes beside it
	let landing: Promise<unknown> = Promise.resolve();
	let treeTurn: Promise<unknown> = Promise.resolve();
	let next = 0;
	const worker = async () => {
		while (next < children.length) {
			const i = next++;
			const child = children[i];
			const cwd = child.step.cwd ?? env.cwd;
			let wt: Worktree | undefined;
			// A writer gets its worktree whatever its cwd: it works in the worktree's matching subfolder.
			// A stopped run makes no more worktrees: its children that had not started do not run.
			if (!inTree && !signal.aborted && mayWrite(child.agent)) {
				try {
					wt = await env.worktrees.create(cwd, join(env.runDir, "worktrees", String(i + 1)), signal);
				} catch (error) {
					if (!inTree && !signal.aborted)
						notes.push(
							`No worktrees (${error instanceof Error ? error.message : String(error)}): the ` +
								`writing children ran one after another in your tree instead.`,
						);
					inTree = true;
				}
			}
			const step = `${i + 1}/${children.length}`;
			let result: ChildResult;
			if (wt || !mayWrite(child.agent)) {
				result = await runOne(child, child.step.task, wt ? (wt.workDir ?? wt.dir) : cwd, wt, env, hooks, signal, step);
			} else {
				// Writers in the parent's own tree take turns.
				const turn = treeTurn.then(() => runOne(child, child.step.task, cwd, undefined, env, hooks, signal, step));
				treeTurn = turn.catch(() => {});
				result = await turn;
			}
			if (wt) {
				const worktree = wt;
				// Landings take turns too: each merges against the tree as the last one left it.
				const landed = landing.then(() => landBack(worktree, child, env));
				landing = landed.catch(() => {});
				result.landed = await landed;
				result.worktree = true;
			}
			results[i] = result;
			hooks.onChildDone?.(result);
		}
	};
	await Promise.all(Array.from({ length: Math.min(env.concurrency, children.length) }, worker));
	return { results, notes };
}

/** One child at a time: in the parent's tree, or (isolated) in a worktree landed when it ends. */
async function runIsolated(
	child: PreparedChild,
	task: string,
	env: LaunchEnv,
	hooks: LaunchHooks,
	signal: AbortSignal,
	step: string,
	notes: string[],
): Promise<ChildResult> {
	const cwd = child.step.cwd ?? env.cwd;
	if (!env.isolate || signal.aborted || !mayWrite(child.agent))
		return runOne(child, task, cwd, undefined, env, hooks, signal, step);
	let wt: Worktree;
	try {
		wt = await env.worktrees.create(
			cwd,
			join(env.runDir, "worktrees", child.label.replace(/[^A-Za-z0-9_.-]/g, "_")),
			signal,
		);
	} catch (error) {
		if (!signal.aborted)
			notes.push(
				`No worktree (${error instanceof Error ? error.message : String(error)}): ${child.label} ` +
					`worked in your tree directly.`,
			);
		return runOne(child, task, cwd, undefined, env, hooks, signal, step);
	}
	const result = await runOne(child, task, wt.workDir ?? wt.dir, wt, env, hooks, signal, step);
	result.landed = await landBack(wt, child, env);
	return result;
}

/** A landing's own deadline: stopping the run never cancels it, or what the child wrote would be lost. */
const LANDING_MS = 120_000;

/**
 * Lands a child's worktree or keeps its change as a patch; the worktree goes only once its change is in one
 * of them.
 */
async function landBack(wt: Worktree, child: PreparedChild, env: LaunchEnv): Promise<Landing> {
	const name = child.label.replace(/[^A-Za-z0-9_.-]/g, "_");
	try {
		const landed = await env.worktrees.land(wt, env.runDir, name, AbortSignal.timeout(LANDING_MS));
		await env.worktrees.remove(wt).catch(() => {});
		return landed;
	} catch (error) {
		const why = error instanceof Error ? error.message : String(error);
		const failed = { status: "conflict" as const, paths: [], conflicts: [] };
		if (!existsSync(wt.dir)) return { ...failed, reason: `its change could not be landed (${why})` };
		return {
			...failed,
			reason: `its change could be neither landed nor saved as a patch (${why})`,
			worktreeDir: wt.dir,
		};
	}
}

async function runOne(
	child: PreparedChild,
	task: string,
	cwd: string,
	wt: Worktree | undefined,
	env: LaunchEnv,
	hooks: LaunchHooks,
	signal: AbortSignal,
	step: string,
): Promise<ChildResult> {
	let outcome: ChildOutcome;
	if (signal.aborted) outcome = unrun("stopped");
	else {
		try {
			hooks.onStart?.(child.label, step);
			outcome = await env.run(child, task, cwd, {
				signal,
				onProgress: (p) => hooks.onProgress?.(child.label, { ...p, step }),
				onControls: (c) => hooks.onControls?.(child.label, c),
			});
		} catch (error) {
			outcome = unrun("failed", error instanceof Error ? error.message : String(error));
		}
	}
	const { findings, blockers, below, pendingAsks } = env.findingsOf(child.label);
	return {
		...outcome,
		label: child.label,
		agent: child.agent.name,
		task,
		model: child.model,
		cwd,
		...(wt ? { worktree: true } : {}),
		findings,
		blockers,
		...(below?.length ? { below } : {}),
		...(pendingAsks?.length ? { pendingAsks } : {}),
	};
}

/** The outcome of a child that never ran: stopped before it started, or failed with why. */
function unrun(status: "stopped" | "failed", error?: string): ChildOutcome {
	return {
		status,
		answer: "",
		...(error !== undefined ? { error } : {}),
		toolCalls: 0,
		tokens: 0,
		cost: 0,
		notices: [],
	};
}

/** The result of a child that failed before it started (no folder, no findings). */
export function failedBeforeStart(child: PreparedChild, error: string): ChildResult {
	return {
		...unrun("failed", error),
		label: child.label,
		agent: child.agent.name,
		task: child.step.task,
		model: child.model,
		cwd: "",
		findings: [],
		blockers: { blockers: [], stalemate: false },
	};
}
