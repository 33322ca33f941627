// What the command and the `subagent` tool can ask of a session's watchdog besides status:
// check the reviewer, recommend one, and change settings (the user's way, applied as asked;
// an agent's way, which needs the user when it lowers oversight).
import {
	checkReviewer,
	type CheckResult,
	formatLiveCheck,
	formatModelRef,
	liveCheck,
	recommendFor,
	UnknownModelError,
} from "../models/index.ts";
import {
	applyConfigure,
	type ConfigureEnv,
	type ConfigurePlan,
	type ConfigureRequest,
	planConfigure,
} from "../settings/index.ts";
import { howToTurnOn } from "../settings/index.ts";
import { type AgentCtx, type Ctx, SESSION_SETTINGS_ENTRY, type WatchdogSession } from "../session/index.ts";
import { agentConfigure, type AgentChangeDeps, CONFIG_CHANGE_ENTRY, type ChangeOutcome } from "./agent-change.ts";
import { commandsFor } from "./watchdog-command.ts";
import { present } from "../host/index.ts";

/** `check` calls the reviewer model once; `check --offline` only resolves it and its credentials. */
export async function check(
	session: WatchdogSession,
	ctx: Ctx,
	options: { offline?: boolean } = {},
): Promise<CheckResult> {
	const resolved = session.settings(ctx);
	const choice = session.reviewer(ctx);
	const result = options.offline
		? await checkReviewer(ctx.modelRegistry, choice)
		: formatLiveCheck(await liveCheck(ctx.modelRegistry, choice));
	const lines = [...result.lines];
	// A failed check is a failure line, as a failed review is: `history --kind failure` finds both.
	if (!result.ok)
		session.recordHistory(ctx as never, { kind: "failure", what: "check", message: result.lines.join(" ") });
	if (resolved.errors.length)
		lines.push(`The settings have errors, so the watchdog is off until they are fixed (see status).`);
	else if (!resolved.enabled) lines.push(`The watchdog is off; ${howToTurnOn(resolved)}.`);
	return { ok: result.ok && resolved.errors.length === 0, lines };
}

/** The strongest model to pick; once one is configured, that model and its check, then the pick beside it. */
export async function recommend(session: WatchdogSession, ctx: Ctx): Promise<string> {
	const choice = session.reviewer(ctx);
	const rec = recommendFor(ctx.modelRegistry, session.sessionModel(ctx));
	if (choice.kind === "configured" && choice.provider && choice.id) {
		const ref = formatModelRef({ provider: choice.provider, id: choice.id }, choice.thinking);
		const source = session.settings(ctx).sources["main.model"];
		const result = await checkReviewer(ctx.modelRegistry, choice);
		const lines = [
			`Configured reviewer model: ${ref}` +
				`${source && source !== "default" ? ` (${source} ${source === "session" ? "override" : "settings"})` : ""}.`,
			...result.lines.map((l) => `  ${l}`),
		];
		if (result.ok) lines.push("  (/subagents-watchdog check calls it once to confirm it answers.)");
		if (!rec.ok) lines.push(`No alternative to suggest: ${rec.reason}.`);
		else if (rec.provider === choice.provider && rec.id === choice.id)
			lines.push(`It is also the model the watchdog would pick itself: ${rec.reason}.`);
		else
			lines.push(
				`The watchdog would pick ${rec.ref} instead: ${rec.reason}.`,
				`To switch to it for this session: /subagents-watchdog session model ${rec.ref}`,
			);
		return lines.join("\n");
	}
	if (!rec.ok) return `No recommendation: ${rec.reason}.`;
	return [
		`Recommended: ${rec.ref} (${rec.reason}).`,
		"Use it for this session: /subagents-watchdog session model recommended",
		"Save it in user settings: /subagents-watchdog model recommended",
	].join("\n");
}

/** A change the user asked for with the command: applied as asked. */
export async function configure(session: WatchdogSession, ctx: Ctx, request: ConfigureRequest): Promise<string> {
	const env = configureEnv(session, ctx);
	const forced = commandsFor({ ...request, thinking: undefined, enabled: undefined, force: true })[0];
	const plan = await withForceHint(` To save it anyway: ${forced}`, () => planConfigure(env, request));
	const message = await applyChange(session, env, request, plan);
	// The user's own changes are history lines as much as an agent's (whose are recorded in agent-change.ts).
	const change = commandsFor({ ...request, ...changedModel(plan) }).join("; ");
	session.recordHistory(ctx as never, { kind: "config-change", by: "user", outcome: "applied", change });
	const offer = await offerRecommended(session, ctx, request);
	return offer ? `${message}\n${offer}` : message;
}

/**
 * `on` with no reviewer model set: the session's own model would review its own work, which is
 * rarely what the user wants. Offers the recommended model: one choice in the TUI, else the command.
 */
async function offerRecommended(session: WatchdogSession, ctx: Ctx, request: ConfigureRequest): Promise<string> {
	if (request.enabled !== true || request.model !== undefined || request.target !== "main") return "";
	if (session.settings(ctx).settings.main.model !== "inherit") return "";
	const head =
		"No reviewer model is set, so the watchdog reviews with the session's own model, " +
		"which rarely catches its own mistakes.";
	const rec = recommendFor(ctx.modelRegistry, session.sessionModel(ctx));
	if (!rec.ok) return `${head} There is no other model to recommend: ${rec.reason}.`;
	const scope = request.scope === "user" ? "" : `${request.scope} `;
	const ui = ctx as Partial<AgentCtx>;
	if (ui.mode === "tui" && ui.hasUI && ui.ui) {
		const use = `Use ${rec.ref} (recommended)`;
		const choice = await ui.ui.select(`${head}\nReview with ${rec.ref} instead?`, [use, "Keep the session's model"]);
		if (choice === use) return configure(session, ctx, { scope: request.scope, target: "main", model: "recommended" });
		return `Kept the session's model. Later: /subagents-watchdog ${scope}model recommended`;
	}
	return `${head} Recommended: ${rec.ref} (${rec.reason}). To use it: /subagents-watchdog ${scope}model recommended`;
}

/** The model a plan saves (a "recommended" resolved), so history names the model, not the word. */
function changedModel(plan: ConfigurePlan): Partial<ConfigureRequest> {
	const entry = [...plan.changes].find(([key]) => key.endsWith("model"));
	const thinking = [...plan.changes].find(([key]) => key.endsWith("thinking"))?.[1];
	if (!entry || typeof entry[1] !== "string") return {};
	return { model: entry[1], ...(typeof thinking === "string" ? { thinking } : {}) };
}

/** A change an agent asked for: one that lowers oversight needs the user (see agent-change.ts). */
export async function configureForAgent(
	session: WatchdogSession,
	ctx: AgentCtx,
	request: ConfigureRequest,
	signal?: AbortSignal,
): Promise<{ outcome: ChangeOutcome; text: string }> {
	const env = configureEnv(session, ctx);
	// A child's own UI reaches nobody: its parent's user is told and asked, as for the parent's own change.
	const child = session.options.role !== "main";
	const user = session.options.parent?.user;
	// Only the TUI has a person at hand to answer; an RPC client is a program, print mode has nobody.
	const canAsk = !child && ctx.mode === "tui" && ctx.hasUI;
	const deps: AgentChangeDeps = {
		env,
		mode: user?.mode ?? ctx.mode,
		...(child ? { who: `the ${session.options.role} child agent` } : {}),
		// The session waits on its user while the dialog is open (its live entry says so, for the fleet view).
		ask: user
			? user.ask
			: canAsk
				? (title, choices) =>
						session.waits.on(`waiting on you: ${title}`, () => ctx.ui.select(title, choices, { signal }))
				: undefined,
		apply: (plan) => applyChange(session, env, request, plan),
		record: (entry) => {
			session.persist(CONFIG_CHANGE_ENTRY, entry);
			session.recordHistory(ctx as never, {
				kind: "config-change",
				by: entry.by,
				outcome: entry.outcome,
				change: entry.command,
			});
		},
		announce: (text, level) => {
			if (user) user.notify(text, level);
			else present(ctx, text, level);
			return !child || user !== undefined;
		},
	};
	return withForceHint(AGENT_FORCE_HINT, () => agentConfigure(deps, request));
}

const AGENT_FORCE_HINT =
	" If you are sure the model exists (e.g. it is about to be added to models.json), call again with force: true.";

/** An unknown model is refused with the closest known ones; `hint` says how to save it anyway. */
async function withForceHint<T>(hint: string, fn: () => Promise<T>): Promise<T> {
	try {
		return await fn();
	} catch (error) {
		if (error instanceof UnknownModelError)
			throw new UnknownModelError(error.ref, error.suggestions, `${error.message}${hint}`);
		throw error;
	}
}

function configureEnv(session: WatchdogSession, ctx: Ctx): ConfigureEnv {
	// A saved change was the user's, or confirmed by them: the file watch must not judge it as the agent's (a
	// child's parent's watch).
	const saved = session.options.parent?.user?.saved ?? ((path, mutate) => session.ownWrite(path, mutate));
	return {
		store: session.store,
		project: session.project(ctx),
		registry: ctx.modelRegistry,
		session: session.sessionModel(ctx),
		saved,
	};
}

async function applyChange(
	session: WatchdogSession,
	env: ConfigureEnv,
	request: ConfigureRequest,
	plan: ConfigurePlan,
): Promise<string> {
	const message = await applyConfigure(env, request, plan);
	if (request.scope === "session")
		session.persist(SESSION_SETTINGS_ENTRY, { overrides: session.store.getSessionOverrides() });
	return message;
}
