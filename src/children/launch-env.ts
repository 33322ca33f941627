// How each child of one launch starts, the same for a foreground launch (in this process) and
// a background runner (its own process): a real Pi session on the given model runtime, our
// watchdog with a channel back that keeps what the child found, and the child's trust judged
// for the folder it works in. launch.ts knows only the LaunchEnv this builds.
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { Api, Model } from "@earendil-works/pi-ai";
import { CONFIG_DIR_NAME, type ExtensionFactory, type ModelRuntime } from "@earendil-works/pi-coding-agent";
import type { ChildBlockers, Finding, ParentChannel, ParentUser } from "../findings/index.ts";
import type { TrustSnapshot } from "../host/index.ts";
import type { PermissionPolicy, UserAllowances } from "../permissions/index.ts";
import { boundedTimeout, childLineage, childTrust, type Lineage, type TreeSlots } from "../session/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import { runChildSession } from "./child-session.ts";
import type { LaunchEnv, WorktreeOps } from "./launch.ts";
import type { BelowRun } from "./launch-result.ts";
import type { ChildWatchdogOptions } from "./launch-agents.ts";

export interface ChildEnvSpec {
	runId: string;
	runDir: string;
	/** The parent's folder. */
	project: string;
	projectTrusted: boolean;
	/** The parent's trust snapshot: each child's is judged from it for the folder it works in. */
	trust: TrustSnapshot;
	agentDir: string;
	/** The parent's settings as they are now. */
	settings: () => ResolvedSettings;
	runtime: ModelRuntime;
	session: { dir?: string; file?: string };
	/** Every writing child gets a worktree, even alone. */
	isolate?: boolean;
	worktrees: WorktreeOps;
	childWatchdog(options: ChildWatchdogOptions): ExtensionFactory;
	/** Each child's model, thinking level and tool permissions, by label; a label missing here cannot run. */
	models: ReadonlyMap<string, { model: Model<Api>; thinking: ThinkingLevel; permissions?: PermissionPolicy }>;
	/** The parent's user (foreground), and where each child's findings go besides the launch's result. */
	user?: ParentUser;
	onFindings?(label: string, role: string, findings: Finding[]): void;
	onSettled?(label: string, state: ChildBlockers): void;
	/** The launching session's place in the tree: each child starts one level below it. */
	lineage: Lineage;
	/** The tree's concurrency budget: each child holds a slot while it runs. */
	slots?: TreeSlots;
	/** The tree's denied asks the user may allow once. */
	allowances?: UserAllowances;
}

export function childLaunchEnv(spec: ChildEnvSpec): LaunchEnv {
	const none = (): ChildBlockers => ({ blockers: [], stalemate: false });
	const kept = new Map<string, { findings: Finding[]; blockers: ChildBlockers; below: BelowRun[] }>();
	const keep = (label: string) => {
		let k = kept.get(label);
		if (!k) {
			k = { findings: [], blockers: none(), below: [] };
			kept.set(label, k);
		}
		return k;
	};
	const channel = (label: string, role: string): ParentChannel => ({
		...(spec.user ? { user: spec.user } : {}),
		deliver(findings) {
			keep(label).findings.push(...findings);
			spec.onFindings?.(label, role, findings);
		},
		settled(state) {
			keep(label).blockers = state;
			spec.onSettled?.(label, state);
		},
		ended(runId, results) {
			keep(label).below.push({ runId, results: results as BelowRun["results"] });
		},
	});
	const { settings } = spec.settings();
	return {
		cwd: spec.project,
		concurrency: settings.children.concurrency,
		runDir: spec.runDir,
		...(spec.isolate ? { isolate: true } : {}),
		worktrees: spec.worktrees,
		findingsOf: (label) => {
			const k = kept.get(label) ?? { findings: [], blockers: none(), below: [] };
			// Its calls the arbiter denied that the user may still allow: the stop waits on them.
			const child = `${spec.runId}/${[...spec.lineage.path, label].join(" > ")}`;
			const pendingAsks = spec.allowances?.pendingFor(child) ?? [];
			return pendingAsks.length ? { ...k, pendingAsks } : k;
		},
		run: async (child, task, cwd, hooks) => {
			const m = spec.models.get(child.label);
			if (!m) throw new Error("no model");
			const release = await spec.slots?.acquire(hooks.signal);
			if (spec.slots && !release) return { ...NOT_STARTED };
			try {
				return await runOne(child, task, cwd, hooks, m);
			} finally {
				release?.();
			}
		},
	};

	function runOne(
		child: Parameters<LaunchEnv["run"]>[0],
		task: string,
		cwd: string,
		hooks: Parameters<LaunchEnv["run"]>[3],
		m: { model: Model<Api>; thinking: ThinkingLevel; permissions?: PermissionPolicy },
	) {
		const role = child.agent.name;
		const now = Date.now();
		// The tree's deadline (the main session's launch) bounds every child below it.
		const timeoutMs = boundedTimeout(spec.lineage, child.step.timeoutMs ?? settings.children.timeoutMs, now);
		let held = true;
		const watchdog = spec.childWatchdog({
			lineage: childLineage(spec.lineage, child.label, child.agent.maxDepth, timeoutMs, now),
			...(spec.slots ? { slots: spec.slots } : {}),
			...(spec.allowances ? { allowances: spec.allowances } : {}),
			lendSlot: () => {
				if (!held || !spec.slots) return undefined;
				held = false;
				const loan = spec.slots.lend();
				return {
					take: async (signal?: AbortSignal) => {
						await loan.take(signal);
						held = true;
					},
				};
			},
			role,
			parent: channel(child.label, role),
			parentSettings: spec.settings,
			runId: spec.runId,
			task,
			project: spec.project,
			...(m.permissions ? { permissions: m.permissions } : {}),
			trust: childTrust(spec.trust, cwd, spec.runDir, spec.agentDir, CONFIG_DIR_NAME),
		});
		return runChildSession(
			{
				agent: child.agent,
				task,
				cwd,
				projectCwd: spec.project,
				projectTrusted: spec.projectTrusted,
				agentDir: spec.agentDir,
				model: m.model,
				thinking: m.thinking,
				timeoutMs,
				modelRuntime: spec.runtime,
				watchdog,
				...(spec.session.dir ? { sessionDir: spec.session.dir } : {}),
				...(spec.session.file ? { parentSessionFile: spec.session.file } : {}),
			},
			hooks,
		);
	}
}

/** A child the stopped launch never started (it waited for a slot of the tree's concurrency). */
const NOT_STARTED = {
	status: "stopped" as const,
	answer: "",
	toolCalls: 0,
	tokens: 0,
	cost: 0,
	notices: [] as string[],
};

/** A finished child's status and figures in a progress view (the foreground one, a background run's status). */
export function childDone<P extends { status: string; toolCount: number; tokens: number; cost: number }>(
	progress: Map<string, P>,
	r: { label: string; status: string; toolCalls: number; tokens: number; cost: number },
): void {
	const before = progress.get(r.label);
	if (before)
		progress.set(r.label, { ...before, status: r.status, toolCount: r.toolCalls, tokens: r.tokens, cost: r.cost });
}
