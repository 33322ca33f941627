// The watchdog of one Pi session (the main one or a child): the root object that owns this
// session's settings, its monitors (see monitor.ts and monitors.ts) and its findings sink.
// Pi's events arrive here from extension.ts; each is handed to every monitor with a hook for
// it, and whatever findings they return go to the sink, which alone delivers. The settle is a
// pipeline of stages (settle.ts) that get a narrow run context, never this object.
import type { BoundaryResult, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { Cadence } from "../cadence/index.ts";
import { EvidenceWatch } from "../evidence/index.ts";
import { ChildFindings, type Finding, FindingsSink } from "../findings/index.ts";
import type { Headless, SettleSeen } from "../headless/index.ts";
import { present, restoreWorkingRow } from "../host/index.ts";
import { LoopWatch } from "../loops/index.ts";
import { ActivityTail, ModelReview, type TurnLike } from "../review/index.ts";
import { Rotation } from "../rotate/index.ts";
import { LaunchRuleWatch } from "../rules/index.ts";
import type { ResolvedSettings, SettingsLocation } from "../settings/index.ts";
import { contentText, isPlainObject } from "../util/index.ts";
import type { SubtreeVerifier } from "../verify/index.ts";
import { cadenceReview } from "./cadence-step.ts";
import { sessionHeadless, trackedPort, watchedSink } from "./headless-step.ts";
import { type ChildPort, childPort } from "./child-port.ts";
import type { Ctx, Entry, HistoryCtx, HistoryLine, Monitor, SettleStage } from "./monitor.ts";
import type { ToolCall, ToolCallCheck, ToolCallVerdict, ToolEvent } from "./monitor.ts";
import * as monitors from "./monitors.ts";
import { liveMonitor } from "./live-step.ts";
import { sessionPermissionGate } from "./permission-step.ts";
import { type RunMonitors, startMonitors, warmLsp } from "./repo-monitors.ts";
import { reviewNow } from "./review-now.ts";
import type { ReviewDeps } from "./review-steps.ts";
import { type SettleEvent, settleRun } from "./settle.ts";
import { settleMark } from "./settle-timing.ts";
import { SessionCore } from "./session-core.ts";
import { settleStages } from "./settle-stages.ts";
import { type StatusLevel, statusView } from "./status-view.ts";
import { lspTrusted, startTrust, trustNow } from "./trust-step.ts";
import { subtreeVerifier } from "./verify-step.ts";
import type { WatchdogHost, WatchdogOptions } from "./options.ts";

export { SESSION_SETTINGS_ENTRY } from "./session-core.ts";

export class WatchdogSession extends SessionCore {
	/** How this session's children reach it (launches, what they found, a run's end). */
	readonly port: ChildPort;
	/** Whether this session has a permission gate (only when its policy can ask or deny). */
	readonly permissionGated: boolean;
	private readonly sink: FindingsSink;
	/** What this session's children found (a parent's view of them). */
	private readonly children = new ChildFindings();
	/** Stopped-subtree verification of this session's children (see src/verify/). */
	private readonly subtree: SubtreeVerifier;
	private readonly review: ModelReview;
	private readonly loops = new LoopWatch();
	/** The claims checker and the unfinished-stop detector (nudges); see evidence-step.ts. */
	private readonly evidence = new EvidenceWatch();
	/** Model rotation after a usage limit (main session only); see rotate-step.ts. */
	private readonly rotation = new Rotation();
	private readonly cadence: Cadence<ExtensionContext>;
	/** The launch rules' last decision (the rules themselves are settings). */
	private readonly launchRules = new LaunchRuleWatch();
	/** Clarification (main session, opt-in): the orchestration activity tail and the per-prompt limits. */
	private readonly activity = new ActivityTail();
	/** The monitors, in status order (hooks run in this order too). */
	private readonly monitors: readonly Monitor[];
	private readonly stages: readonly SettleStage[];
	/** Monitors bound to the session's repository (made at session start). */
	private run: RunMonitors = {};
	/** The footer's word on the last boundary review (see outcome-label.ts). */
	private lastOutcome?: string;
	private shutdownHooks = new Set<() => void>();
	/** The checks that may refuse a tool call: the options' own, then the permission gate when there is one. */
	private readonly toolCallChecks: ToolCallCheck[];
	/** Print, JSON and RPC mode: strict exit, the report, the bounded wait at the end (main session). */
	private readonly headless: Headless;

	constructor(location: SettingsLocation, host: WatchdogHost, options: WatchdogOptions = { role: "main" }) {
		super(location, host, options);
		const record = (ctx: HistoryCtx, event: HistoryLine) => this.recordHistory(ctx, event);
		this.sink = new FindingsSink({
			persist: (type, data) => this.host.appendEntry(type, data),
			steer: (message) => this.host.steer(message),
			wake: (message) => {
				this.activity.continuedByWatchdog(); // the run this starts is the watchdog's
				const start = this.headless.closing() ? this.host.post : this.host.wake; // print mode winding up: no new run
				(start ?? this.host.steer)(message);
			},
			post: (message) => (this.host.post ?? this.host.steer)(message),
			present,
			record,
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
			role: options.role,
			project: options.project,
			trust: () => this.trust,
		});
		this.subtree = subtreeVerifier({
			settings: (ctx) => this.settings(ctx),
			reviewer: (ctx) => this.reviewer(ctx),
			baseline: () => this.run.gate?.baseline ?? null,
			sink: this.sink,
			persist: (type, data) => this.host.appendEntry(type, data),
			record,
		});
		this.headless = sessionHeadless(host, (ctx) => this.settings(ctx), this.sink, this.subtree);
		if (options.role === "main") this.historyTap = (line) => this.headless.record(line);
		const { sink, subtree, children } = this;
		const { parent } = options;
		const port = childPort({ sink, subtree, children, parent, settings: (ctx) => this.settings(ctx) });
		this.port = trackedPort(port, this.headless, (ctx) => this.settings(ctx).settings.agentEndTimeoutMs);
		const reviewDeps = this.reviewDeps();
		this.cadence = new Cadence<ExtensionContext>({
			review: (ctx, cancel) => {
				const deliver = (c: ExtensionContext, found: Finding[]) => {
					this.sink.duringRun(c, found, this.settings(c).settings);
				};
				const persist = (type: string, data: unknown) => this.host.appendEntry(type, data);
				return cadenceReview({ ...reviewDeps, deliver, persist }, ctx, cancel).catch(() => {});
			},
		});
		const repo = () => this.run;
		this.monitors = [
			monitors.reviewMonitor(this.review),
			monitors.findingsMonitor(this.sink),
			monitors.childrenMonitor(this.children),
			monitors.changesMonitor(repo, this.cadence),
			monitors.lspMonitor(repo),
			monitors.loopsMonitor(this.loops),
			monitors.evidenceMonitor(this.evidence),
			monitors.activityMonitor(this.activity),
			monitors.rotationMonitor(this.rotation),
			monitors.subtreeMonitor(this.subtree),
			monitors.settingsChangeMonitor(this.settingsWatch),
			monitors.cadenceMonitor(this.cadence),
			monitors.launchRulesMonitor(this.launchRules),
			monitors.trustMonitor(() => this.trust),
			// The main session is reachable by the fleet view (children are their parent's).
			...(options.role === "main" ? [this.liveMonitor()] : []),
		];
		this.stages = settleStages({
			role: options.role,
			host,
			review: this.review,
			sink: this.sink,
			rotation: this.rotation,
			evidence: this.evidence,
			activity: this.activity,
			gate: () => this.run.gate,
			settings: (ctx) => this.settings(ctx),
			sessionModel: (ctx) => this.sessionModel(ctx),
			clarifying: (ctx) => this.clarifying(ctx),
			reviewDeps,
		});
		const gate = sessionPermissionGate(options, {
			settings: (ctx) => this.settings(ctx),
			reviewer: (ctx) => this.reviewer(ctx),
			sessionModel: (ctx) => this.sessionModel(ctx),
			record,
			user: { allowances: this.allowances, path: this.lineage.path },
		});
		this.permissionGated = gate !== undefined;
		this.toolCallChecks = [...(options.toolCallChecks ?? []), ...(gate ? [gate] : [])];
	}

	/** The fleet's mailbox: a message is one more finding for the sink (see live-step.ts). */
	private liveMonitor(): Monitor {
		return liveMonitor({
			agentDir: () => this.location.agentDir(),
			deliver: (ctx, findings, idle) => this.deliver(ctx, findings, this.settings(ctx).settings, { fleet: true }, idle),
			policy: (ctx) => this.policy(ctx),
			waiting: () => this.waits.current(),
		});
	}

	/** What a review needs of this session (the boundary's, the cadence's, the review command's). */
	private reviewDeps(): ReviewDeps {
		return {
			review: this.review,
			repo: () => this.run,
			trust: () => this.trust,
			loopSignals: () => this.loops.signals(),
			record: (ctx, line) => this.recordHistory(ctx, line),
			outcome: (label) => {
				this.lastOutcome = label;
			},
		};
	}

	// ---------- Pi's events ----------

	sessionStart(ctx: ExtensionContext): void {
		const entries: readonly Entry[] = ctx.sessionManager.getBranch();
		this.restoreSession(entries);
		this.rememberModels(ctx);
		for (const m of this.monitors) m.restore?.(entries);
		for (const m of this.monitors) m.start?.(ctx);
		this.run = startMonitors(this.run, ctx.cwd, this.location.configDirName);
		this.trust = startTrust(this.trustDeps(), ctx, entries, this.run.lsp?.root ?? ctx.cwd);
		if (this.options.role === "main") this.headless.start(ctx);
		const lsp = this.run.lsp;
		if (this.options.role === "main") warmLsp(lsp, this.settings(ctx), () => lspTrusted(this.trust, lsp?.root ?? ""));
	}

	/** A real user prompt (typed, or sent over RPC; never another extension's message). */
	userInput(text: string): void {
		for (const m of this.monitors) m.userPrompt?.(text);
	}

	/** Any input at all, the user's or another extension's: a nudge waiting for the stall time is off. */
	anyInput(): void {
		for (const m of this.monitors) m.input?.();
	}

	/** A turn ended: with clarification on, its subagent calls and results join the activity tail; off, none is kept. */
	turnEnd(ctx: Ctx, turn: TurnLike & { outcome?: string }): void {
		if (!this.clarifying(ctx)) {
			this.activity.clear();
			return;
		}
		if (turn.outcome === "completed") this.activity.turnEnd(turn);
	}

	/** Pi compacted the session: the activity tail is gone with the turns it came from. */
	compacted(): void {
		this.activity.clear();
		this.loops.compacted();
	}

	agentStart(ctx: ExtensionContext): void {
		if (ctx.mode === "tui") restoreWorkingRow(ctx);
		// The settings files first: whatever the monitors read after this is the settings as they now stand.
		if (this.options.role === "main") this.settingsWatch.runStart(ctx);
		this.run.startLeaf ??= { leaf: ctx.sessionManager.getLeafId() };
	}

	/** Before a tool runs. The checks that may refuse it answer first; then the gate may take its snapshot. */
	async toolCall(ctx: ExtensionContext, call: ToolCall): Promise<ToolCallVerdict> {
		for (const check of this.toolCallChecks) {
			const verdict = await check(ctx, call);
			if (verdict?.block) return verdict;
		}
		const resolved = this.settings(ctx);
		for (const m of this.monitors) {
			const verdict = await m.toolCall?.(ctx, call, resolved);
			if (verdict?.block) return verdict;
		}
		return undefined;
	}

	toolResult(ctx: ExtensionContext, event: ToolEvent): void {
		if (this.options.role === "main") this.settingsWatch.toolResult(ctx, event.toolName);
		const resolved = this.settings(ctx);
		if (!resolved.enabled) return;
		for (const m of this.monitors) {
			const found = m.toolResult?.(ctx, event, resolved);
			if (!found) continue;
			if (found.resolved) this.sink.resolved(ctx, found.resolved.customType, found.resolved.text, found.resolved.data);
			this.sink.duringRun(ctx, found.findings, resolved.settings, found.details);
			if (found.stop) {
				present(ctx, found.stop, "warning");
				ctx.abort();
			}
		}
	}

	/** An assistant message ended: its visible text goes to the monitors (the loop detector: the model restating). */
	assistantMessage(ctx: ExtensionContext, message: unknown): void {
		if (!isPlainObject(message) || message.role !== "assistant") return;
		const resolved = this.settings(ctx);
		const text = contentText(message.content);
		for (const m of this.monitors) m.assistantText?.(text, resolved);
	}

	/** The settle boundary: the stages in their fixed order, then the sink once (see settle.ts). */
	async beforeSettle(ctx: ExtensionContext, event: SettleEvent): Promise<BoundaryResult | undefined> {
		this.cadence.cancel(); // the boundary review replaces a cadence review still running
		this.cadence.resetCount();
		this.settingsWatch.settle(ctx);
		const result = await this.settle(ctx, event);
		// A run the watchdog's delivery continued cannot bring fresh activity of its own.
		if (result?.continue && !event.continue) this.activity.continuedByWatchdog();
		else this.activity.settledAlone();
		return result;
	}

	private async settle(ctx: ExtensionContext, event: SettleEvent): Promise<BoundaryResult | undefined> {
		const since = this.run.startLeaf?.leaf ?? null;
		this.run.startLeaf = undefined;
		// Taken at every settle, so this run's activity never carries over to trigger a later one.
		const activityDue = this.activity.takeActivityDue();
		const gate = this.run.gate;
		const resolved = this.settings(ctx);
		if (!gate || !resolved.enabled || event.outcome === "aborted") {
			gate?.abandonRun();
			return undefined;
		}
		settleMark("start");
		const record = (line: HistoryLine) => this.recordHistory(ctx, line);
		const clarify = this.clarifying(ctx);
		const { role } = this.options;
		const input = { ctx, event, settings: resolved.settings, since, activityDue, clarify, role, record };
		const seen: SettleSeen = { findings: [], verdict: false };
		const result = await settleRun(this.stages, input, watchedSink(this.sink, seen));
		this.headless.settled(seen);
		return result;
	}

	/** `/subagents-watchdog review`: the boundary review now, over the pending changes (see review-now.ts). */
	reviewNow(ctx: ExtensionContext): Promise<{ text: string; level: "info" | "warning" }> {
		const deliver = (c: ExtensionContext, found: Finding[], settings: ResolvedSettings["settings"]) =>
			this.sink.duringRun(c, found, settings, undefined, true);
		const persist = (type: string, data: unknown) => this.host.appendEntry(type, data);
		return reviewNow({ ...this.reviewDeps(), settings: (c) => this.settings(c), deliver, persist }, ctx);
	}

	/** The trust command: the project's files are trusted as they are now. Returns what to tell the user. */
	trustNow(ctx: Ctx): string {
		const taken = trustNow(this.trustDeps(), ctx, this.run.lsp?.root ?? ctx.cwd);
		this.trust = taken.trust;
		return taken.text;
	}

	/** Runs `hook` at session end (foreground children are stopped then); returns its removal. */
	onShutdown(hook: () => void): () => void {
		this.shutdownHooks.add(hook);
		return () => this.shutdownHooks.delete(hook);
	}

	/** A review in flight belongs to the model and session it started with. */
	modelChange(): void {
		for (const m of this.monitors) m.modelChange?.();
	}

	/** Session end: a headless run's end (see headless-step.ts), the hooks, then every monitor stops. */
	async shutdown(ctx?: ExtensionContext, reason = "quit"): Promise<void> {
		if (ctx && this.options.role === "main") await this.headless.end(ctx, reason).catch(() => {});
		for (const hook of [...this.shutdownHooks]) {
			try {
				hook();
			} catch {
				// one hook's trouble does not keep the others from running
			}
		}
		const stopping: Array<Promise<void>> = [];
		for (const m of this.monitors) {
			const stopped = m.shutdown?.();
			if (stopped) stopping.push(stopped);
		}
		await Promise.all(stopping);
	}

	// ---------- what other folders may ask of the session ----------

	/** Findings during a run (a launch's rules, a test finding) go through the sink; `idle`: nothing is running. */
	deliver(
		ctx: ExtensionContext,
		findings: Finding[],
		settings: ResolvedSettings["settings"],
		details?: Record<string, unknown>,
		idle = false,
	): ReturnType<FindingsSink["duringRun"]> {
		return this.sink.duringRun(ctx, findings, settings, details, idle);
	}

	/** `dismiss`: the user takes a finding (or all) off the stalemate and out of status. */
	dismiss(ctx: ExtensionContext, which: number | "all"): Finding[] {
		return this.sink.dismiss(ctx, which);
	}

	/** The launch rules' decision on a launch, for status. */
	rememberLaunch(...decision: Parameters<LaunchRuleWatch["remember"]>): void {
		this.launchRules.remember(...decision);
	}

	/** The footer's word: errors, a held settings change, the last review's outcome, or on; undefined when simply off. */
	statusLabel(ctx: Ctx): string | undefined {
		const r = this.settings(ctx);
		if (r.errors.length) return "watchdog: settings error";
		if (this.settingsWatch.held().length) return "watchdog: settings change held";
		if (!r.enabled) return undefined;
		if (this.lastOutcome) return this.lastOutcome;
		const failed = this.review.lastFailureKind();
		return failed ? `watchdog: review failed (${failed})` : "watchdog on";
	}

	/** `/subagents-watchdog status` at one of its levels (see status-view.ts). */
	statusText(ctx: Ctx, level: StatusLevel = "settings"): string {
		const { store, trust, monitors, review, sink } = this;
		const { role } = this.options;
		const source = { resolved: this.settings(ctx), reviewer: this.reviewer(ctx), store, trust, role };
		return statusView({ ...source, clarifying: this.clarifying(ctx), monitors, review, sink }, ctx, level);
	}
}
