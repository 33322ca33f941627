// What the command and the `subagent` tool can ask of a session's watchdog besides status:
// check the reviewer, recommend one, and change settings (the user's way, applied as asked;
// an agent's way, which needs the user when it lowers oversight).
import { checkReviewer, type CheckResult, recommendFor } from "../models/index.ts";
import { applyConfigure, type ConfigureEnv, type ConfigurePlan, type ConfigureRequest, planConfigure } from "../settings/index.ts";
import { howToTurnOn } from "../settings/index.ts";
import { type AgentCtx, type Ctx, SESSION_SETTINGS_ENTRY, type WatchdogSession } from "../session/index.ts";
import { agentConfigure, CONFIG_CHANGE_ENTRY, type ChangeOutcome } from "./agent-change.ts";
import { present } from "../host/index.ts";

export async function check(session: WatchdogSession, ctx: Ctx): Promise<CheckResult> {
	const resolved = session.settings(ctx);
	const result = await checkReviewer(ctx.modelRegistry, session.reviewer(ctx));
	const lines = [...result.lines];
	if (resolved.errors.length) lines.push(`The settings have errors, so the watchdog is off until they are fixed (see status).`);
	else if (!resolved.enabled) lines.push(`The watchdog is off; ${howToTurnOn(resolved)}.`);
	return { ok: result.ok && resolved.errors.length === 0, lines };
}

export async function recommend(session: WatchdogSession, ctx: Ctx): Promise<string> {
	const choice = session.reviewer(ctx);
	const rec = recommendFor(ctx.modelRegistry, session.sessionModel(ctx), choice);
	if (!rec.ok) return `No recommendation: ${rec.reason}.`;
	if (rec.kept) {
		const result = await checkReviewer(ctx.modelRegistry, choice);
		return [`Keeping the configured model ${rec.ref}: ${rec.reason}.`, ...result.lines].join("\n");
	}
	return [
		`Recommended: ${rec.ref} (${rec.reason}).`,
		"Use it for this session: /subagents-watchdog session model recommended",
		"Save it in user settings: /subagents-watchdog model recommended",
	].join("\n");
}

/** A change the user asked for with the command: applied as asked. */
export async function configure(session: WatchdogSession, ctx: Ctx, request: ConfigureRequest): Promise<string> {
	const env = configureEnv(session, ctx);
	return applyChange(session, env, request, await planConfigure(env, request));
}

/** A change an agent asked for: one that lowers oversight needs the user (see agent-change.ts). */
export async function configureForAgent(session: WatchdogSession, ctx: AgentCtx, request: ConfigureRequest, signal?: AbortSignal): Promise<{ outcome: ChangeOutcome; text: string }> {
	const env = configureEnv(session, ctx);
	// Only the TUI has a person at hand to answer; an RPC client is a program, print mode has nobody.
	const canAsk = ctx.mode === "tui" && ctx.hasUI;
	return agentConfigure(
		{
			env,
			mode: ctx.mode,
			ask: canAsk ? (title, message) => ctx.ui.confirm(title, message, { signal }) : undefined,
			apply: (plan) => applyChange(session, env, request, plan),
			record: (entry) => {
				session.host.appendEntry(CONFIG_CHANGE_ENTRY, entry);
				session.recordHistory(ctx as never, { kind: "config-change", by: entry.by, outcome: entry.outcome, change: entry.command });
			},
			announce: (text, level) => present(ctx, text, level),
		},
		request,
	);
}

function configureEnv(session: WatchdogSession, ctx: Ctx): ConfigureEnv {
	return { store: session.store, project: session.project(ctx), registry: ctx.modelRegistry, session: session.sessionModel(ctx) };
}

async function applyChange(session: WatchdogSession, env: ConfigureEnv, request: ConfigureRequest, plan: ConfigurePlan): Promise<string> {
	const message = await applyConfigure(env, request, plan);
	if (request.scope === "session") session.host.appendEntry(SESSION_SETTINGS_ENTRY, { overrides: session.store.getSessionOverrides() });
	return message;
}
