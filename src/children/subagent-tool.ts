// The `subagent` tool: launches child agents (without `action`), acts on runs, and carries the
// watchdog actions. Dispatch only; launching is in launcher.ts, actions on runs in background.ts.
import type { ExtensionContext, ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { ChangeOutcome } from "../commands/index.ts";
import { check, configureForAgent, recommend } from "../commands/index.ts";
import { historyEnv, runHistory } from "../commands/index.ts";
import { type AgentCtx, tooDeep, type WatchdogSession as Watchdog } from "../session/index.ts";
import { launchBackground, runAction } from "./background.ts";
import { planLaunch } from "./launch-plan.ts";
import { launchFindings } from "./launch-result.ts";
import { launchForeground, type LauncherDeps } from "./launcher.ts";
import { SUBAGENT_TOOL } from "./tool-card.ts";
import { RUN_ACTIONS, type SubagentParams, type subagentParameters, WATCHDOG_ACTIONS } from "./tool-params.ts";

const NESTED_ASYNC =
	"not launched: a child agent's own launches run in the foreground (async is for the main session): " +
	"they land in your folder before you end, and stop when you stop. Launch again without async.";

/** `onConfigured` lets the host refresh what it shows after a configure action; `launcher` runs children. */
export function subagentTool(
	watchdog: Watchdog,
	onConfigured: (ctx: ExtensionContext) => void,
	launcher: Omit<LauncherDeps, "watchdog">,
): ToolDefinition<typeof subagentParameters> {
	// The settings' child policy keys (pi-subagents' agentOverrides, disableBuiltins) travel with the agents.
	const agents: LauncherDeps["agents"] = (ctx, trust) => {
		const policy = watchdog.settings(ctx).childPolicy;
		return { ...launcher.agents(ctx, trust), ...(policy ? { policy } : {}) };
	};
	const deps: LauncherDeps = { ...launcher, agents, watchdog };
	return {
		...SUBAGENT_TOOL,
		async execute(id, raw, signal, onUpdate, ctx) {
			// pi-subagents' thinking false is off, for launches and watchdog.configure alike.
			const params = { ...(raw as SubagentParams) };
			if (params.thinking === false) params.thinking = "off";
			if (params.action === undefined) {
				// Past the tree's depth nothing starts: no agent is read, no folder made.
				const deep = tooDeep(watchdog.lineage, watchdog.settings(ctx).settings.children.maxDepth);
				if (deep) throw new Error(deep);
				const plan = planLaunch({ ...params, thinking: params.thinking || undefined });
				if ("error" in plan) throw new Error(plan.error);
				if (plan.async && watchdog.lineage.depth > 0) throw new Error(NESTED_ASYNC);
				// The session follows every launch of this prompt (its verifier; src/session/child-port.ts).
				const launch = watchdog.port.launching(id);
				let out: Awaited<ReturnType<typeof launchForeground>>;
				try {
					out = plan.async
						? await launchBackground(deps, ctx, plan, signal)
						: await launchForeground(deps, ctx, plan, signal, onUpdate as never);
				} catch (error) {
					launch.abandoned();
					throw error;
				}
				const runId = String(out.details.runId);
				if (plan.async) launch.started(runId);
				// The tool's answer is the children's results; their findings go through the sink, after it.
				else if (out.results && !signal?.aborted) {
					const end = { runId, results: out.results, via: "launch", toolCallId: id };
					await watchdog.port.ended(ctx, end, { findings: launchFindings(out.results), details: { run: runId } });
				} else launch.abandoned();
				return { content: [{ type: "text", text: out.text }], details: out.details };
			}
			if ((RUN_ACTIONS as readonly string[]).includes(params.action)) {
				const out = await runAction(deps, ctx, params, signal);
				return { content: [{ type: "text", text: out.text }], details: { action: params.action, ...out.details } };
			}
			const { text, outcome } = await run(watchdog, ctx, params, signal);
			if (outcome === "applied") onConfigured(ctx);
			return { content: [{ type: "text", text }], details: { action: params.action, ...(outcome ? { outcome } : {}) } };
		},
	};
}

async function run(
	watchdog: Watchdog,
	ctx: AgentCtx & Partial<Pick<ExtensionContext, "sessionManager">>,
	params: SubagentParams,
	signal: AbortSignal | undefined,
): Promise<{ text: string; outcome?: ChangeOutcome }> {
	switch (params.action) {
		case "watchdog.status":
			// What is set and each part's state; the defaults (some 40 lines) would only cost the agent tokens.
			return { text: watchdog.statusText(ctx, "all") };
		case "watchdog.recommend-model":
			return { text: await recommend(watchdog, ctx) };
		case "watchdog.check":
			return { text: (await check(watchdog, ctx, { offline: true })).lines.join("\n") };
		case "watchdog.configure":
			return configureForAgent(
				watchdog,
				ctx,
				{
					scope: params.scope ?? "session",
					target: configureTarget(params),
					model: params.model,
					thinking: params.thinking || undefined,
					enabled: params.enabled,
					...(params.force ? { force: true } : {}),
				},
				signal,
			);
		case "watchdog.review":
			return { text: (await watchdog.reviewNow(ctx as ExtensionContext)).text };
		case "watchdog.history": {
			const request = {
				session: params.session,
				since: params.since,
				sources: params.source?.split(","),
				limit: params.limit,
				json: params.json,
			};
			const result = await runHistory(request, historyEnv(ctx));
			// A bad field is the agent's mistake to fix: a tool error says so.
			if (result.level === "error") throw new Error(result.text);
			return { text: result.text };
		}
		default:
			throw new Error(
				`unknown action; use one of ${[...RUN_ACTIONS, ...WATCHDOG_ACTIONS].join(", ")}, or leave it out to launch`,
			);
	}
}

/** pi-subagents' `{target: "child", agent}` names a role; a bare `target` is main, children or a role. */
function configureTarget(params: SubagentParams): string {
	const target = params.target?.trim() || "main";
	if (target !== "child") return target;
	const role = params.agent?.trim();
	if (!role) throw new Error('watchdog.configure with target "child" needs agent: the role to configure');
	return role;
}
