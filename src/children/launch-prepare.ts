// What a launch needs before anything starts, the same for a foreground and a background
// launch: the agents, their tool permissions, the folders made absolute, the labels, and each
// child's model. One policy for a model that does not resolve: the whole launch is refused
// here, naming the child and the problem, before a run folder, a session or a runner exists.
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { Api, Model } from "@earendil-works/pi-ai";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type PermissionPolicy, under } from "../permissions/index.ts";
import { resolveChildModel } from "./child-model.ts";
import type { CheckedChild } from "./launch-check.ts";
import { resolveLaunchCwds } from "./launch-cwd.ts";
import type { LaunchPlan } from "./launch-plan.ts";
import type { PreparedChild } from "./launch.ts";
import { findAgents, labelsFor, type LauncherDeps, permissionPolicies } from "./launch-agents.ts";

/** One child ready to start: its step, agent and label, the model it runs on, and its tool permissions. */
export interface ReadyChild extends PreparedChild {
	resolved: Model<Api>;
	thinking: ThinkingLevel;
	permissions?: PermissionPolicy;
	/** What the launch rules judge. */
	checked: CheckedChild;
}

export interface PreparedLaunch {
	/** The plan with every folder absolute. */
	plan: LaunchPlan;
	children: ReadyChild[];
}

/**
 * Throws (a tool error, nothing started) on an unknown or broken agent, a broken rule set, a bad
 * folder or a model that does not resolve.
 */
export async function prepareLaunch(
	deps: LauncherDeps,
	ctx: ExtensionContext,
	asked: LaunchPlan,
	signal?: AbortSignal,
): Promise<PreparedLaunch> {
	const agents = findAgents(
		deps.agents(ctx, deps.watchdog.trust),
		asked.steps.map((s) => s.agent),
	);
	// A nested child runs under the launching child's permissions as well as its own.
	const above = deps.watchdog.options.permissions;
	const policies = permissionPolicies(deps.agentDir, agents).map((own) => under(own, above));
	// Made absolute here: a background runner starts in its run folder, not in this session's.
	const plan = await resolveLaunchCwds(asked, ctx.cwd, agents, signal);
	const labels = labelsFor(agents.map((a) => a.name));
	const children: ReadyChild[] = [];
	const problems: string[] = [];
	for (const [i, step] of plan.steps.entries()) {
		const agent = agents[i];
		const choice = resolveChildModel(
			ctx.modelRegistry,
			{
				launchModel: step.model,
				launchThinking: step.thinking,
				agentModel: agent.model,
				agentThinking: agent.thinking,
			},
			{ model: ctx.model, thinking: ctx.thinkingLevel },
		);
		if ("error" in choice) {
			problems.push(`${labels[i]}: ${choice.error}`);
			continue;
		}
		const thinking = choice.thinking as ThinkingLevel;
		children.push({
			label: labels[i],
			step,
			agent,
			model: choice.ref,
			resolved: choice.model,
			thinking,
			...(policies[i] ? { permissions: policies[i] } : {}),
			checked: {
				label: labels[i],
				role: agent.name,
				model: choice.model,
				thinking,
				explicit: Boolean(step.model && step.model !== "inherit"),
			},
		});
	}
	// Nothing starts on a plan already known to be broken: one unresolved child refuses the launch.
	if (problems.length) throw new Error(`not launched: ${problems.join("; ")}`);
	return { plan, children };
}

/** The parent session's id, file and folder (children's session files go beside it); empty when the session is gone. */
export function sessionInfo(ctx: ExtensionContext): { id?: string; file?: string; dir?: string } {
	try {
		const manager = ctx.sessionManager;
		return { id: manager.getSessionId(), file: manager.getSessionFile(), dir: manager.getSessionDir() };
	} catch {
		return {};
	}
}
