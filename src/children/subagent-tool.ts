// The `subagent` tool. For now it carries the watchdog actions; launching child agents joins
// it later under the same tool, so `action` is optional and the launch fields can be added
// beside the ones here.
import type { ExtensionContext, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { type Static, Type } from "typebox";
import { THINKING_LEVELS } from "../models/index.ts";
import type { ChangeOutcome } from "../commands/index.ts";
import { configureForAgent, recommend } from "../commands/index.ts";
import { historyEnv, runHistory } from "../commands/index.ts";
import { type AgentCtx, reviewNow, type WatchdogSession as Watchdog } from "../session/index.ts";

export const WATCHDOG_ACTIONS = ["watchdog.status", "watchdog.recommend-model", "watchdog.configure", "watchdog.history", "watchdog.review"] as const;

const enumOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: "string", enum: [...values], description });

export const subagentParameters = Type.Object({
	action: Type.Optional(enumOf(WATCHDOG_ACTIONS, "What to do.")),
	model: Type.Optional(Type.String({ description: 'watchdog.configure: "provider/id[:thinking]", "recommended", or "inherit" (use the session model).' })),
	thinking: Type.Optional(enumOf([...THINKING_LEVELS, "inherit"], "watchdog.configure: the reviewer's thinking level.")),
	enabled: Type.Optional(Type.Boolean({ description: "watchdog.configure: turn the watchdog for the target on or off." })),
	force: Type.Optional(Type.Boolean({ description: "watchdog.configure: save a model Pi does not know. Without it an unknown model is refused with the closest known ones; prefer one of those." })),
	scope: Type.Optional(enumOf(["session", "user", "project"] as const, 'watchdog.configure: where the change lives. Default "session".')),
	target: Type.Optional(Type.String({ description: 'watchdog.configure: "main" (default), "children", or a child role name.' })),
	session: Type.Optional(Type.String({ description: 'watchdog.history: "current" or a session id. Default: every session in this project.' })),
	since: Type.Optional(Type.String({ description: 'watchdog.history: "90m", "24h", "7d", or an ISO date/time.' })),
	source: Type.Optional(Type.String({ description: "watchdog.history: review, main, lsp, loops, claims, a child role; several comma-separated." })),
	limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: "watchdog.history: how many events, newest first. Default 20." })),
	json: Type.Optional(Type.Boolean({ description: "watchdog.history: one JSON object per line instead of text." })),
});

type Params = Static<typeof subagentParameters>;

const DESCRIPTION = [
	"Inspect and configure the watchdog that reviews this session's work with a second model.",
	'- {action: "watchdog.status"}: settings and their sources, the reviewer model in effect, errors.',
	'- {action: "watchdog.recommend-model"}: the suggested reviewer model.',
	'- {action: "watchdog.configure", model?, thinking?, enabled?, scope?, target?}: change the reviewer model, thinking level or switch.',
	'- {action: "watchdog.history", session?, since?, source?, limit?, json?}: past reviews, findings (and what became of each), failures; newest first.',
	'- {action: "watchdog.review"}: review the pending changes (those an earlier review did not complete) now.',
	'Use scope "session" (the default) unless the user asked for a lasting default; "user" and "project" write settings files that affect other sessions.',
	"Every change is shown to the user. A change that lowers oversight (turning a watchdog off, a reviewer of the session model's own family or the session model itself, less thinking) needs the user: they are asked in the TUI, and elsewhere it is refused with the command they can run. Do not retry a refused or declined change.",
].join("\n");

/** `onConfigured` lets the host refresh what it shows after a configure action. */
export function subagentTool(watchdog: Watchdog, onConfigured: (ctx: ExtensionContext) => void): ToolDefinition<typeof subagentParameters> {
	return {
		name: "subagent",
		label: "Subagent",
		description: DESCRIPTION,
		promptSnippet: "subagent: watchdog.status, watchdog.recommend-model, watchdog.configure (scope session unless asked otherwise), watchdog.history",
		parameters: subagentParameters,
		async execute(_id, raw, signal, _onUpdate, ctx) {
			const params = raw as Params;
			const { text, outcome } = await run(watchdog, ctx, params, signal);
			if (outcome === "applied") onConfigured(ctx);
			return { content: [{ type: "text", text }], details: { action: params.action, ...(outcome ? { outcome } : {}) } };
		},
	};
}

async function run(watchdog: Watchdog, ctx: AgentCtx & Partial<Pick<ExtensionContext, "sessionManager">>, params: Params, signal: AbortSignal | undefined): Promise<{ text: string; outcome?: ChangeOutcome }> {
	switch (params.action) {
		case "watchdog.status":
			return { text: watchdog.statusText(ctx) };
		case "watchdog.recommend-model":
			return { text: await recommend(watchdog, ctx) };
		case "watchdog.configure":
			return configureForAgent(
				watchdog,
				ctx,
				{
					scope: params.scope ?? "session",
					target: params.target?.trim() || "main",
					model: params.model,
					thinking: params.thinking,
					enabled: params.enabled,
					...(params.force ? { force: true } : {}),
				},
				signal,
			);
		case "watchdog.review":
			return { text: (await reviewNow(watchdog, ctx as ExtensionContext)).text };
		case "watchdog.history": {
			const request = { session: params.session, since: params.since, sources: params.source?.split(","), limit: params.limit, json: params.json };
			const result = await runHistory(request, historyEnv(ctx));
			// A bad field is the agent's mistake to fix: a tool error says so.
			if (result.level === "error") throw new Error(result.text);
			return { text: result.text };
		}
		default:
			throw new Error(`subagent needs an action: ${WATCHDOG_ACTIONS.join(", ")}. Launching child agents is not available in this version.`);
	}
}
