// How each child of one launch starts, the same for a foreground launch (in this process) and
// a background runner (its own process): a real Pi session on the given model runtime, our
// watchdog with a channel back that keeps what the child found, and the child's trust judged
// for the folder it works in. launch.ts knows only the LaunchEnv this builds.
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { Api, Model } from "@earendil-works/pi-ai";
import { CONFIG_DIR_NAME, type ExtensionFactory, type ModelRuntime } from "@earendil-works/pi-coding-agent";
import type { ChildBlockers, Finding, ParentChannel, ParentUser } from "../findings/index.ts";
import type { TrustSnapshot } from "../host/index.ts";
import type { PermissionPolicy } from "../permissions/index.ts";
import { childTrust } from "../session/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import { runChildSession } from "./child-session.ts";
import type { LaunchEnv, WorktreeOps } from "./launch.ts";
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
}

export function childLaunchEnv(spec: ChildEnvSpec): LaunchEnv {
	const none = (): ChildBlockers => ({ blockers: [], stalemate: false });
	const kept = new Map<string, { findings: Finding[]; blockers: ChildBlockers }>();
	const keep = (label: string) => {
		let k = kept.get(label);
		if (!k) {
			k = { findings: [], blockers: none() };
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
	});
	const { settings } = spec.settings();
	return {
		cwd: spec.project,
		concurrency: settings.children.concurrency,
		runDir: spec.runDir,
		...(spec.isolate ? { isolate: true } : {}),
		worktrees: spec.worktrees,
		findingsOf: (label) => kept.get(label) ?? { findings: [], blockers: none() },
		run: (child, task, cwd, hooks) => {
			const m = spec.models.get(child.label);
			if (!m) throw new Error("no model");
			const role = child.agent.name;
			const watchdog = spec.childWatchdog({
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
					timeoutMs: child.step.timeoutMs ?? settings.children.timeoutMs,
					modelRuntime: spec.runtime,
					watchdog,
					...(spec.session.dir ? { sessionDir: spec.session.dir } : {}),
					...(spec.session.file ? { parentSessionFile: spec.session.file } : {}),
				},
				hooks,
			);
		},
	};
}
