// The watchdog of one Pi session: owns the settings store and answers the commands and tool
// actions. Talks to Pi only through the context it is handed.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { piTrusts } from "./host/trust.ts";
import type { Thinking } from "./models/model-ref.ts";
import { checkReviewer, chooseReviewer, type CheckResult, recommendFor, type ReviewerChoice, type SessionModelInfo } from "./models/reviewer-model.ts";
import { type ConfigureEnv, type ConfigurePlan, type ConfigureRequest, applyConfigure, planConfigure } from "./settings/configure.ts";
import { howToTurnOn, isPlainObject, type ResolvedSettings } from "./settings/resolve.ts";
import type { SettingsLayer } from "./settings/schema.ts";
import { type ProjectContext, type SettingsLocation, SettingsStore } from "./settings/store.ts";
import { agentConfigure, CONFIG_CHANGE_ENTRY, type ChangeOutcome } from "./commands/agent-change.ts";
import { present } from "./commands/present.ts";
import { LoopWatch } from "./loops/loop-watch.ts";
import { BoundaryReview } from "./review/boundary-review.ts";
import { baselineSections, formatStatus, type StatusSection } from "./status/status-text.ts";

export const SESSION_SETTINGS_ENTRY = "watchdog-session-settings";

export interface WatchdogHost {
	/** Persists data in the session (Pi's `appendEntry`); never sent to the model. */
	appendEntry(customType: string, data: unknown): void;
	/** Steers a message into the running agent (Pi's `sendMessage` with `deliverAs: "steer"`). */
	steer(message: { customType: string; content: string | unknown[]; display: boolean; details?: unknown }): void;
}


/** The parts of Pi's context the watchdog reads. */
export type Ctx = Pick<ExtensionContext, "cwd" | "isProjectTrusted" | "modelRegistry" | "model" | "thinkingLevel">;

/** What a tool call adds: whether and how the user can be asked. */
export type AgentCtx = Ctx & Pick<ExtensionContext, "mode" | "hasUI" | "ui">;

export class Watchdog {
	readonly store: SettingsStore;
	readonly boundary: BoundaryReview;
	readonly loops: LoopWatch<ExtensionContext>;
	private noticedErrors = "";
	private modelRefs: string[] = [];
	private readonly host: WatchdogHost;

	constructor(location: SettingsLocation, host: WatchdogHost) {
		this.store = new SettingsStore(location);
		this.host = host;
		this.boundary = new BoundaryReview({
			configDirName: location.configDirName,
			agentDir: location.agentDir,
			settings: (ctx) => this.settings(ctx),
			reviewer: (ctx) => this.reviewer(ctx),
			present,
			persist: (type, data) => this.host.appendEntry(type, data),
			steer: (message) => this.host.steer(message),
			signals: () => this.loops.signals(),
		});
		this.loops = new LoopWatch<ExtensionContext>({
			settings: (ctx) => this.settings(ctx),
			steer: (message) => this.host.steer(message),
			persist: (type, data) => this.host.appendEntry(type, data),
			present,
			abort: (ctx) => ctx.abort(),
		});
	}

	project(ctx: Ctx): ProjectContext {
		return { cwd: ctx.cwd, trusted: piTrusts(ctx) };
	}

	settings(ctx: Ctx): ResolvedSettings {
		return this.store.resolve(this.project(ctx));
	}

	sessionModel(ctx: Ctx): SessionModelInfo {
		return {
			model: ctx.model ? { provider: ctx.model.provider, id: ctx.model.id } : undefined,
			thinking: ctx.thinkingLevel as Thinking | undefined,
		};
	}

	reviewer(ctx: Ctx): ReviewerChoice {
		return chooseReviewer(this.settings(ctx).settings.main, this.sessionModel(ctx));
	}

	/** Restores this session's overrides from its entries (after /reload, resume, fork, new). */
	restoreSession(entries: ReadonlyArray<{ type: string; customType?: string; data?: unknown }>): void {
		let layer: SettingsLayer = {};
		for (const entry of entries) {
			if (entry.type === "custom" && entry.customType === SESSION_SETTINGS_ENTRY && isPlainObject(entry.data) && isPlainObject(entry.data.overrides)) {
				layer = entry.data.overrides as SettingsLayer;
			}
		}
		this.store.replaceSessionOverrides(layer);
	}

	rememberModels(ctx: Ctx): void {
		try {
			this.modelRefs = ctx.modelRegistry.getAvailable().map((m) => `${m.provider}/${m.id}`);
		} catch {
			this.modelRefs = [];
		}
	}

	knownModelRefs(): readonly string[] {
		return this.modelRefs;
	}

	/** One notice per distinct set of settings errors; returns it, or undefined when there is nothing new. */
	settingsNotice(ctx: Ctx): string | undefined {
		const { errors } = this.settings(ctx);
		const key = errors.map((e) => `${e.origin}:${e.message}`).join("\n");
		if (key === this.noticedErrors) return undefined;
		this.noticedErrors = key;
		if (!key) return undefined;
		const first = errors[0];
		return `Watchdog off for this session: ${errors.length} settings error${errors.length > 1 ? "s" : ""}. First: ${first.origin}: ${first.message}. See /subagents-watchdog status.`;
	}

	/** A short footer label, or undefined when the watchdog is simply off. */
	statusLabel(ctx: Ctx): string | undefined {
		const r = this.settings(ctx);
		if (r.errors.length) return "watchdog: settings error";
		if (!r.enabled) return undefined;
		const failed = this.boundary.lastFailureKind();
		return failed ? `watchdog: review failed (${failed})` : "watchdog on";
	}

	statusText(ctx: Ctx): string {
		const resolved = this.settings(ctx);
		const project = this.project(ctx);
		return formatStatus({
			resolved,
			reviewer: this.reviewer(ctx),
			files: { user: this.store.userPath(), project: this.store.projectPath(project.cwd), projectTrusted: project.trusted },
			sections: withLive(baselineSections(resolved.settings), [
				...this.boundary.sections(resolved.enabled, resolved.settings.lsp.enabled),
				this.loops.section(resolved.enabled && resolved.settings.loops.enabled),
			]),
		});
	}

	async check(ctx: Ctx): Promise<CheckResult> {
		const resolved = this.settings(ctx);
		const result = await checkReviewer(ctx.modelRegistry, this.reviewer(ctx));
		const lines = [...result.lines];
		if (resolved.errors.length) lines.push(`The settings have errors, so the watchdog is off until they are fixed (see status).`);
		else if (!resolved.enabled) lines.push(`The watchdog is off; ${howToTurnOn(resolved)}.`);
		return { ok: result.ok && resolved.errors.length === 0, lines };
	}

	async recommend(ctx: Ctx): Promise<string> {
		const choice = this.reviewer(ctx);
		const rec = recommendFor(ctx.modelRegistry, this.sessionModel(ctx), choice);
		if (!rec.ok) return `No recommendation: ${rec.reason}.`;
		if (rec.kept) {
			const check = await checkReviewer(ctx.modelRegistry, choice);
			return [`Keeping the configured model ${rec.ref}: ${rec.reason}.`, ...check.lines].join("\n");
		}
		return [
			`Recommended: ${rec.ref} (${rec.reason}).`,
			"Use it for this session: /subagents-watchdog session model recommended",
			"Save it in user settings: /subagents-watchdog model recommended",
		].join("\n");
	}

	/** A change the user asked for with the command: applied as asked. */
	async configure(ctx: Ctx, request: ConfigureRequest): Promise<string> {
		const env = this.configureEnv(ctx);
		return this.applyChange(env, request, await planConfigure(env, request));
	}

	/** A change an agent asked for: one that lowers oversight needs the user (see agent-change.ts). */
	async configureForAgent(ctx: AgentCtx, request: ConfigureRequest, signal?: AbortSignal): Promise<{ outcome: ChangeOutcome; text: string }> {
		const env = this.configureEnv(ctx);
		// Only the TUI has a person at hand to answer; an RPC client is a program, print mode has nobody.
		const canAsk = ctx.mode === "tui" && ctx.hasUI;
		return agentConfigure(
			{
				env,
				mode: ctx.mode,
				ask: canAsk ? (title, message) => ctx.ui.confirm(title, message, { signal }) : undefined,
				apply: (plan) => this.applyChange(env, request, plan),
				record: (entry) => this.host.appendEntry(CONFIG_CHANGE_ENTRY, entry),
				announce: (text, level) => present(ctx, text, level),
			},
			request,
		);
	}

	private configureEnv(ctx: Ctx): ConfigureEnv {
		return { store: this.store, project: this.project(ctx), registry: ctx.modelRegistry, session: this.sessionModel(ctx) };
	}

	private async applyChange(env: ConfigureEnv, request: ConfigureRequest, plan: ConfigurePlan): Promise<string> {
		const message = await applyConfigure(env, request, plan);
		if (request.scope === "session") this.host.appendEntry(SESSION_SETTINGS_ENTRY, { overrides: this.store.getSessionOverrides() });
		return message;
	}
}

/** Live sections replace the baseline section of the same title. */
function withLive(baseline: StatusSection[], live: StatusSection[]): StatusSection[] {
	return baseline.map((section) => live.find((l) => l.title === section.title) ?? section);
}
