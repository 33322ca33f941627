// What a `subagent` call asks to launch, checked before anything starts: one child, parallel
// tasks or a chain, with the per-launch options. Pure: the tool's arguments in, a plan or the
// reason it is not one out.
import { MAX_CHILD_TIMEOUT_MS, MAX_CHILD_TIMEOUT_TEXT } from "../settings/index.ts";

export interface LaunchStep {
	agent: string;
	task: string;
	model?: string;
	thinking?: string;
	cwd?: string;
	timeoutMs?: number;
}

export type LaunchMode = "single" | "parallel" | "chain";

export interface LaunchPlan {
	mode: LaunchMode;
	steps: LaunchStep[];
	async: boolean;
}

/** The launch fields of the tool's arguments (the same fields serve every mode). */
export interface LaunchArgs {
	agent?: string;
	task?: string;
	tasks?: LaunchStep[];
	chain?: LaunchStep[];
	model?: string;
	thinking?: string;
	cwd?: string;
	timeoutMs?: number;
	async?: boolean;
}

/** Most children one call may start; past this a launch is more likely a mistake than a plan. */
export const MAX_STEPS = 32;
export const PREVIOUS = "{previous}";

export function planLaunch(args: LaunchArgs): LaunchPlan | { error: string } {
	const modes = [
		args.agent !== undefined || args.task !== undefined,
		args.tasks !== undefined,
		args.chain !== undefined,
	].filter(Boolean).length;
	if (modes === 0)
		return {
			error:
				"nothing to launch: give { agent, task }, { tasks: [{ agent, task }, …] } or " +
				"{ chain: [{ agent, task }, …] }, or an action",
		};
	if (modes > 1) return { error: "give only one of { agent, task }, tasks or chain" };
	// Options at the top level apply to every step that does not set its own.
	const shared = { model: args.model, thinking: args.thinking, cwd: args.cwd, timeoutMs: args.timeoutMs };
	const withShared = (s: LaunchStep): LaunchStep => {
		const out: LaunchStep = { agent: s.agent?.trim(), task: s.task };
		for (const key of ["model", "thinking", "cwd", "timeoutMs"] as const) {
			const value = s[key] ?? shared[key];
			if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
		}
		return out;
	};
	let mode: LaunchMode;
	let steps: LaunchStep[];
	if (args.tasks !== undefined) {
		mode = "parallel";
		steps = args.tasks.map(withShared);
	} else if (args.chain !== undefined) {
		mode = "chain";
		steps = args.chain.map(withShared);
	} else {
		mode = "single";
		steps = [withShared({ agent: args.agent ?? "", task: args.task ?? "" })];
	}
	if (!steps.length)
		return { error: `${mode === "chain" ? "chain" : "tasks"} is empty: give at least one { agent, task }` };
	if (steps.length > MAX_STEPS) return { error: `at most ${MAX_STEPS} children per call (got ${steps.length})` };
	for (const [i, step] of steps.entries()) {
		const where = steps.length > 1 ? `step ${i + 1}: ` : "";
		if (!step.agent) return { error: `${where}which agent? give "agent"` };
		if (typeof step.task !== "string" || !step.task.trim()) return { error: `${where}the task is empty` };
		if (step.timeoutMs !== undefined && !(step.timeoutMs <= MAX_CHILD_TIMEOUT_MS)) {
			return {
				error:
					`${where}timeoutMs ${step.timeoutMs} is more than the most a child may run, ${MAX_CHILD_TIMEOUT_TEXT}; ` +
					`give a shorter deadline`,
			};
		}
		if (i === 0 && mode === "chain" && step.task.includes(PREVIOUS))
			return { error: `step 1: ${PREVIOUS} has no previous step to take from` };
	}
	return { mode, steps, async: args.async === true };
}

/** A chain step's task with `{previous}` replaced by the previous step's final answer. */
export function chainTask(task: string, previous: string): string {
	return task.split(PREVIOUS).join(previous);
}
