// The watchdog of one Pi session (the main one or a child): the root object that owns this
// session's settings, its monitors (change gate, LSP, loops, cadence, model review) and its
// findings sink. Pi's events arrive here from extension.ts; each is handed to the monitors
// that need it, and whatever findings they return go to the sink, which alone delivers.
import { isAbsolute, join } from "node:path";
import type { BoundaryResult, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { Cadence } from "../cadence/index.ts";
import { present, restoreWorkingRow, type TrustSnapshot } from "../host/index.ts";
import { ChildFindings, DEFAULT_MAX_BYTES, FindingsSink, type HistoryEventInput, HistoryLog, type ParentChannel, type SinkEvent } from "../findings/index.ts";

/** A history event as a monitor or the sink makes it; the session adds session id and cwd. */
export type HistoryLine = SinkEvent | Record<string, unknown>;
import { noticeHeld, startTrust, unstartedTrust } from "./trust-step.ts";
import { EvidenceWatch, type Policy } from "../evidence/index.ts";
import { LoopWatch, LOOP_RESOLVED_ENTRY } from "../loops/index.ts";
import { chooseReviewer, type ReviewerChoice, type SessionModelInfo, type Thinking } from "../models/index.ts";
import { ActivityTail, ModelReview, type TurnLike } from "../review/index.ts";
import { Rotation } from "../rotate/index.ts";
import { LaunchRuleWatch } from "../rules/index.ts";
import { childView, placeBareModels, type ProjectContext, type ResolvedSettings, type SettingsLayer, type SettingsLocation, SettingsStore } from "../settings/index.ts";
import { gates, type PermissionPolicy } from "../permissions/index.ts";
import { contentText, isPlainObject } from "../util/index.ts";
import { type RunMonitors, settleRun, startMonitors } from "./settle.ts";
import { footerLabel, type StatusLevel, statusView } from "./status-view.ts";
import { cadenceReview } from "./cadence-step.ts";
import { permissionCheck } from "./permission-step.ts";
import { SettingsChangeWatch } from "./settings-change-step.ts";
import { SettingsNotices } from "./settings-notice.ts";
import { SubtreeVerifier } from "../verify/index.ts";
import { type ChildPort, childPort } from "./child-port.ts";
export { historyOfReview } from "./cadence-step.ts";

export const SESSION_SETTINGS_ENTRY = "watchdog-session-settings";

/** Which watchdog this is: the main session's, or a child's with the channel to its parent. */
export interface WatchdogOptions {
	role: string;
	parent?: ParentChannel;
	/** Checks that may refuse a tool call (the permission gate): asked first, before anything slow. */
	toolCallChecks?: ToolCallCheck[];
	/** A child's settings: the parent's effective ones (seen through `children.*` here). */
	parentSettings?: () => ResolvedSettings;
	/** A child's launch id, for its history lines. */
	runId?: string;
	/** A child's tool permissions (resolved at launch); a gate is installed only when they can ask or deny. */
	permissions?: PermissionPolicy;
	/** A child's task, which the permission arbiter is shown. */
	task?: string;
	project?: string; // a child's: the parent's folder (its history lines and its reviewer's root)
	trust?: TrustSnapshot; // a child's: its trust in the files of the folder it works in (judged at launch)
}

export type ToolCallVerdict = { block: true; reason: string } | undefined;
export type ToolCallCheck = (ctx: ExtensionContext, call: { toolName: string; input: unknown; toolCallId?: string }) => ToolCallVerdict | Promise<ToolCallVerdict>;

export interface WatchdogHost {
	/** Persists data in the session (Pi's `appendEntry`); never sent to the model. */
	appendEntry(customType: string, data: unknown): void;
	/** Steers a message into the running agent (Pi's `sendMessage` with `deliverAs: "steer"`). */
	steer(message: { customType: string; content: string | unknown[]; display: boolean; details?: unknown }): void;
	/** Pi's `sendMessage` with `triggerTurn`: when the agent is idle, starts a run that answers it. */
	wake?(message: { customType: string; content: string | unknown[]; display: boolean; details?: unknown }): void;
	post?(message: Parameters<WatchdogHost["steer"]>[0]): void; // Pi's `sendMessage` with no options: starts nothing
	/** Pi's `setModel` for this session (rotation); false when Pi has no credentials for it. */
	setModel?(model: NonNullable<ExtensionContext["model"]>): Promise<boolean>;
	/** Pi's `setThinkingLevel` (a rotation target given with its level). */
	setThinkingLevel?(level: Thinking): void;
}

/** What a history line needs from Pi's context: the session it belongs to. */
export type HistoryCtx = { cwd: string; sessionManager?: { getSessionId(): string }; isProjectTrusted?: () => boolean };

/** The parts of Pi's context the watchdog reads. */
export type Ctx = Pick<ExtensionContext, "cwd" | "isProjectTrusted" | "modelRegistry" | "model" | "thinkingLevel">;

/** What a tool call adds: whether and how the user can be asked. */
export type AgentCtx = Ctx & Pick<ExtensionContext, "mode" | "hasUI" | "ui">;

type ToolEvent = { toolName: string; input: unknown; content: unknown; isError: boolean; details?: unknown };

export class WatchdogSession {
	/** The settings files as the user accepted them: an agent's change that lowers oversight waits for the user. */
	readonly settingsWatch = new SettingsChangeWatch();
	readonly store: SettingsStore;
	readonly options: WatchdogOptions;
	readonly sink: FindingsSink;
	readonly review: ModelReview;
	readonly loops: LoopWatch;
	/** The claims checker and the unfinished-stop detector (nudges); see evidence-step.ts. */
	readonly evidence = new EvidenceWatch();
	/** Model rotation after a usage limit (main session only); see rotate-step.ts. */
	readonly rotation = new Rotation();
	readonly cadence: Cadence<ExtensionContext>;
	readonly host: WatchdogHost;
	readonly historyLog: HistoryLog;
	/** What this session's children found (a parent's view of them). */
	readonly children = new ChildFindings();
	/** The launch rules' last decision (the rules themselves are settings). */
	readonly launchRules = new LaunchRuleWatch();
	/** Clarification (main session, opt-in): the orchestration activity tail and the per-prompt limits. */
	readonly activity = new ActivityTail();
	/** Stopped-subtree verification of this session's children (see src/verify/). */
	readonly subtree: SubtreeVerifier;
	readonly port: ChildPort = childPort(this); // how this session's children reach it
	private historyMaxBytes = DEFAULT_MAX_BYTES;
	private readonly location: SettingsLocation;
	/** Monitors bound to the session's repository (made at session start). */
	private run: RunMonitors = {};
	/** The footer's word on the last boundary review (see outcome-label.ts). */
	lastOutcome?: string;
	private modelRefs: string[] = [];
	private placed?: { from: ResolvedSettings; registry: Ctx["modelRegistry"]; value: ResolvedSettings };
	private readonly notices = new SettingsNotices();
	private shutdownHooks = new Set<() => void>();
	/** The checks that may refuse a tool call: the options' own, then the permission gate when there is one. */
	private readonly toolCallChecks: ToolCallCheck[];
	/** Whether this session has a permission gate (only when its policy can ask or deny). */
	readonly permissionGated: boolean;
	/** Trust in the project's own files, bound to what was there at the decision (see trust-step.ts). */
	trust = unstartedTrust();

	constructor(location: SettingsLocation, host: WatchdogHost, options: WatchdogOptions = { role: "main" }) {
		this.location = location;
		this.store = new SettingsStore(location, this.settingsWatch.files);
		this.host = host;
		this.options = options;
		this.historyLog = new HistoryLog({ agentDir: location.agentDir, maxBytes: () => this.historyMaxBytes });
		this.sink = new FindingsSink({
			persist: (type, data) => this.host.appendEntry(type, data),
			steer: (message) => this.host.steer(message),
			wake: (message) => {
				this.activity.continuedByWatchdog(); // the run this starts is the watchdog's
				(this.host.wake ?? this.host.steer)(message);
			},
			post: (message) => (this.host.post ?? this.host.steer)(message),
			present,
			record: (ctx, event) => this.recordHistory(ctx, event),
			parent: options.parent,
			role: options.role,
		});
		this.review = new ModelReview({
			configDirName: location.configDirName,
			agentDir: location.agentDir,
			settings: (ctx) => this.settings(ctx),
			reviewer: (ctx) => this.reviewer(ctx),
			present,
			persist: (type, data) => this.host.appendEntry(type, data),
			role: options.role, project: options.project, trust: () => this.trust,
		});
		this.loops = new LoopWatch();
		this.subtree = new SubtreeVerifier({
			enabled: (ctx) => this.settings(ctx).enabled,
			config: (ctx) => {
				const s = this.settings(ctx).settings;
				const choice = this.reviewer(ctx);
				return { config: { model: `${choice.provider ?? ""}/${choice.id ?? ""}`, thinking: choice.thinking, severityThreshold: s.severityThreshold, policy: s.idle.policy }, timeoutMs: s.agentEndTimeoutMs, choice };
			},
			baseline: () => this.run.gate?.baseline ?? null,
			deliver: (ctx, findings, idle) => void this.sink.duringRun(ctx, findings, this.settings(ctx).settings, { verification: true }, idle),
			note: (ctx, text) => this.sink.note(ctx, text),
			persist: (type, data) => this.host.appendEntry(type, data),
			record: (ctx, event) => this.recordHistory(ctx, event),
		});
		this.cadence = new Cadence<ExtensionContext>({
			review: (ctx, cancel) => cadenceReview(this, ctx, cancel).catch(() => {}),
		});
		this.toolCallChecks = [...(options.toolCallChecks ?? [])];
		this.permissionGated = gates(options.permissions);
		if (this.permissionGated) this.toolCallChecks.push(permissionCheck(this, options.permissions as PermissionPolicy));
	}

	// ---------- Pi's events ----------

	sessionStart(ctx: ExtensionContext): void {
		const entries = ctx.sessionManager.getBranch();
		this.restoreSession(entries);
		this.rememberModels(ctx);
		this.cadence.cancel();
		this.activity.clear();
		this.activity.userPrompt();
		this.review.sessionStart(entries);
		this.sink.restore(entries as never);
		this.rotation.restore(entries);
		this.subtree.restore(entries);
		this.loops.sessionStart();
		this.run = startMonitors(this.run, ctx.cwd, this.location.configDirName);
		this.trust = startTrust(this, ctx, entries, this.run.lsp?.root ?? ctx.cwd);
	}

	/** A real user prompt (typed, or sent over RPC; never another extension's message). */
	userInput(text: string): void {
		this.review.userPrompt(text);
		this.cadence.cancel();
		this.sink.userPrompt();
		this.loops.userPrompt();
		this.evidence.userPrompt();
		this.activity.userPrompt();
		this.rotation.userPrompt(Date.now());
		this.subtree.userPrompt();
	}

	/** Any input at all, the user's or another extension's: a nudge waiting for the stall time is off. */
	anyInput(): void {
		this.evidence.input();
		this.activity.input();
	}

	/** A turn ended: with clarification on, its subagent calls and results join the activity tail; off, nothing is kept. */
	turnEnd(ctx: Ctx, turn: TurnLike & { outcome?: string }): void {
		if (!this.clarifying(ctx)) return this.activity.clear();
		if (turn.outcome === "completed") this.activity.turnEnd(turn);
	}

	/** Pi compacted the session: the activity tail is gone with the turns it came from. */
	compacted(): void {
		this.activity.clear();
	}

	/** Clarification is on for this session: the main session's watchdog, enabled, with `clarification: true`. */
	clarifying(ctx: Ctx): boolean {
		if (this.options.role !== "main") return false;
		const resolved = this.settings(ctx);
		return resolved.enabled && resolved.settings.clarification;
	}

	agentStart(ctx: ExtensionContext): void {
		if (ctx.mode === "tui") restoreWorkingRow(ctx);
		if (this.options.role === "main") this.settingsWatch.runStart(this, ctx);
		this.run.startLeaf ??= { leaf: ctx.sessionManager.getLeafId() };
	}

	/** Before a tool runs. The checks that may refuse it answer first; then the gate may take its snapshot. */
	async toolCall(ctx: ExtensionContext, call: { toolName: string; input: unknown; toolCallId?: string }): Promise<ToolCallVerdict> {
		for (const check of this.toolCallChecks) {
			const verdict = await check(ctx, call);
			if (verdict?.block) return verdict;
		}
		if (this.settings(ctx).enabled) await this.run.gate?.beforeTool(call.toolName, call.input);
		return undefined;
	}

	toolResult(ctx: ExtensionContext, event: ToolEvent): void {
		if (this.options.role === "main") this.settingsWatch.toolResult(this, ctx, event.toolName);
		const resolved = this.settings(ctx);
		if (!resolved.enabled) return;
		this.run.gate?.afterTool(event.toolName, event.input, event.isError);
		this.cadence.onToolResult(ctx, resolved.settings.cadence.everyNTools); // counts towards the next cadence review
		const path = (event.input as { path?: unknown } | undefined)?.path;
		if (!event.isError && resolved.settings.lsp.enabled && (event.toolName === "edit" || event.toolName === "write") && typeof path === "string") {
			this.run.lsp?.prefetch([isAbsolute(path) ? path : join(ctx.cwd, path)], resolved.settings.lsp);
		}
		const loop = this.loops.toolResult({ enabled: resolved.enabled, loops: resolved.settings.loops }, event);
		if (loop.resolved) this.sink.resolved(ctx, LOOP_RESOLVED_ENTRY, loop.resolved.text, { at: Date.now(), call: loop.resolved.call });
		this.sink.duringRun(ctx, loop.findings, resolved.settings, loop.signal ? { signal: loop.signal } : undefined);
		if (loop.stop) {
			present(ctx, loop.stop, "warning");
			ctx.abort();
		}
	}

	/**
	 * The session's evidence policy (`idle.policy`, `/subagents-watchdog policy`): what the claims
	 * checker and the unfinished-stop nudges may do. Other features that must hold back under
	 * handsoff (flag, never act) read it here.
	 */
	policy(ctx: Ctx): Policy {
		return this.settings(ctx).settings.idle.policy;
	}

	/** An assistant message ended: its visible text goes to the loop detector (the model restating itself). */
	assistantMessage(ctx: ExtensionContext, message: unknown): void {
		if (!isPlainObject(message) || message.role !== "assistant") return;
		const resolved = this.settings(ctx);
		this.loops.assistantText({ enabled: resolved.enabled, loops: resolved.settings.loops }, contentText(message.content));
	}

	/** The settle boundary: the monitors in their fixed order, then the sink (see settle.ts). */
	async beforeSettle(ctx: ExtensionContext, event: { entries: BoundaryResult["entries"]; continue: boolean; outcome: string }): Promise<BoundaryResult | undefined> {
		this.cadence.cancel(); // the boundary review replaces a cadence review still running
		this.cadence.resetCount();
		this.settingsWatch.settle(this, ctx);
		const result = await settleRun(this, this.run, ctx, event);
		// A run the watchdog's delivery continued cannot bring fresh activity of its own.
		if (result?.continue && !event.continue) this.activity.continuedByWatchdog();
		else this.activity.settledAlone();
		return result;
	}

	/** The repository-bound monitors (the gate and the language server), for the review command. */
	monitors(): RunMonitors {
		return this.run;
	}

	/** Runs `hook` at session end (foreground children are stopped then); returns its removal. */
	onShutdown(hook: () => void): () => void {
		this.shutdownHooks.add(hook);
		return () => this.shutdownHooks.delete(hook);
	}

	/** A review in flight belongs to the model and session it started with. */
	modelChange(): void {
		this.review.cancel("a model change");
		this.cadence.cancel();
	}

	/** Session end: stop the reviews and the language server. */
	async shutdown(): Promise<void> {
		for (const hook of [...this.shutdownHooks]) {
			try {
				hook();
			} catch {
				// one hook's trouble does not keep the others from running
			}
		}
		this.evidence.cancelStall();
		this.activity.clear();
		this.subtree.shutdown();
		this.review.cancel();
		this.cadence.cancel();
		await this.run.lsp?.shutdown();
	}

	/** One line in the history log (`<agentDir>/watchdog/history.jsonl`); a failed write is never Pi's problem. */
	recordHistory(ctx: HistoryCtx, event: HistoryLine): void {
		try {
			const session = ctx.sessionManager?.getSessionId() ?? "unknown";
			this.historyMaxBytes = (this.options.parentSettings?.() ?? this.store.resolve(this.project(ctx as Ctx))).settings.history.maxBytes;
			const child = this.options.role !== "main" ? { role: this.options.role, ...(this.options.runId ? { run: this.options.runId } : {}) } : {};
			this.historyLog.append({ ...event, ...child, session, cwd: this.options.project ?? ctx.cwd } as HistoryEventInput);
		} catch {
			// a stale context or an unwritable agent folder: the event is in the session all the same
		}
	}

	// ---------- settings and status ----------

	project(ctx: Ctx): ProjectContext {
		return { cwd: ctx.cwd, trusted: this.trust.decided, trust: this.trust };
	}

	settings(ctx: Ctx): ResolvedSettings {
		const parent = this.options.parentSettings;
		if (parent) return noticeHeld(this.trust, ctx, childView(parent(), this.options.role));
		const from = this.store.resolve(this.project(ctx));
		// Bare model ids are placed against Pi's models; the store's memo keeps this to one lookup per change.
		const origin = (source: string) => (source === "user" ? this.store.userPath() : source === "project" ? this.store.projectPath(ctx.cwd) : "session overrides");
		if (this.placed?.from !== from || this.placed.registry !== ctx.modelRegistry) this.placed = { from, registry: ctx.modelRegistry, value: placeBareModels(from, ctx.modelRegistry, origin) };
		return noticeHeld(this.trust, ctx, this.placed.value);
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

	/** New settings errors and pi-subagents keys that do nothing here, once each (see settings-notice.ts). */
	settingsNotice(ctx: Ctx): string | undefined {
		return this.notices.next(this.settings(ctx), this.options.role);
	}

	/** A short footer label, or undefined when the watchdog is simply off (see status-view.ts). */
	statusLabel(ctx: Ctx): string | undefined {
		return footerLabel(this, ctx);
	}

	/** `/subagents-watchdog status` at one of its levels (see status-view.ts). */
	statusText(ctx: Ctx, level: StatusLevel = "settings"): string {
		return statusView(this, this.run, ctx, level);
	}
}
