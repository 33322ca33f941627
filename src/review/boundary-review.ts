// The boundary review of one session: at each settle boundary, if the run changed the
// repository, ask the reviewer model about it and route what it finds. Holds the session's
// scope, review history and stalemate count; everything else is delegated to pure parts.
import { randomBytes } from "node:crypto";
import { isAbsolute, join } from "node:path";
import type { BoundaryResult, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ReviewerChoice } from "../models/reviewer-model.ts";
import type { ResolvedSettings } from "../settings/resolve.ts";
import type { StatusSection } from "../status/status-text.ts";
import { Cadence } from "../cadence/cadence.ts";
import { repositoryTrust } from "../host/trust.ts";
import { LspManager } from "../lsp/lsp-manager.ts";
import { lspSection } from "../lsp/lsp-status.ts";
import { ChangeGate } from "./change-gate.ts";
import { FINDING_MESSAGE, planDelivery } from "./delivery.ts";
import { findingText, firstLine } from "./finding.ts";
import { type GuidanceFile, readGuidance } from "./guidance.ts";
import { loadPrompt } from "./prompts.ts";
import { buildReviewInput } from "./review-input.ts";
import { addRecord, EMPTY_HISTORY, findingsSection, historyFromEntries, REVIEW_ENTRY, type ReviewHistory, type ReviewRecord, reviewSection } from "./review-record.ts";
import { type ReviewOutcome, runReview } from "./reviewer.ts";
import { addPrompt, EMPTY_SCOPE, type Scope, SCOPE_ENTRY, scopeFromEntries } from "./scope.ts";
import { NO_STALEMATE, recordReview, type StalemateState } from "./stalemate.ts";
import { createReviewerReadTools } from "./tools/reviewer-tools.ts";
import { type EntryLike, renderTurnDelta } from "./turn-delta.ts";

const GIT_STATUS_TIMEOUT_MS = 15_000;

/** Continuations our findings may start per user prompt, whatever the reviewer says. */
export const MAX_CONTINUATIONS = 5;

type Ctx = Pick<ExtensionContext, "cwd" | "mode" | "ui" | "sessionManager" | "modelRegistry" | "model" | "thinkingLevel" | "isProjectTrusted">;
type Level = "info" | "warning" | "error";

export interface BoundaryDeps {
	configDirName: string;
	agentDir: () => string;
	settings: (ctx: Ctx) => ResolvedSettings;
	reviewer: (ctx: Ctx) => ReviewerChoice;
	present: (ctx: Ctx, text: string, level: Level) => void;
	persist: (customType: string, data: unknown) => void;
	/** Delivers a message to the model during a run (Pi's steer). */
	steer: (message: { customType: string; content: string | unknown[]; display: boolean; details?: unknown }) => void;
	/** Deterministic signals from other detectors (loops), for the reviewer. */
	signals: () => string[];
}

export class BoundaryReview {
	private readonly deps: BoundaryDeps;
	private gate?: ChangeGate;
	private scope: Scope = EMPTY_SCOPE;
	private history: ReviewHistory = EMPTY_HISTORY;
	private stalemate: StalemateState = NO_STALEMATE;
	private continuations = 0;
	/** Leaf entry when the current run started; undefined between runs. */
	private runStart: { leaf: string | null } | undefined;
	private running?: AbortController;
	private cancelReason = "new input";
	private lastProblem?: string;
	/** Kind and model of the last failure announced: a rate limit's text changes every time, its meaning does not. */
	private lastFailureKey?: string;
	private guidanceSkipped = "";
	private lsp?: LspManager;

	private readonly cadence: Cadence<Ctx>;

	constructor(deps: BoundaryDeps) {
		this.deps = deps;
		this.cadence = new Cadence<Ctx>({
			everyN: (ctx) => this.deps.settings(ctx).settings.cadence.everyNTools,
			review: (ctx, cancel) => this.cadenceReview(ctx, cancel).catch(() => {}),
		});
	}

	sessionStart(ctx: Ctx): void {
		this.cancel();
		const entries = ctx.sessionManager.getBranch();
		this.scope = scopeFromEntries(entries);
		this.history = historyFromEntries(entries);
		this.stalemate = NO_STALEMATE;
		this.continuations = 0;
		this.runStart = undefined;
		this.lastProblem = undefined;
		this.lastFailureKey = undefined;
		const artifacts = `${this.deps.configDirName}-subagents/`;
		this.gate = new ChangeGate({
			cwd: ctx.cwd,
			ignore: (p) => p.startsWith(artifacts) || p.startsWith("tmp/") || p.startsWith(".git/") || /(^|\/)node_modules\//.test(p),
			// The first snapshot holds up the agent's first write: a repository too big for this gets a notice, not a wait.
			timeoutMs: GIT_STATUS_TIMEOUT_MS,
		});
		const root = this.gate.repo?.root ?? ctx.cwd;
		if (this.lsp?.root !== root) {
			void this.lsp?.shutdown();
			this.lsp = new LspManager(root);
		}
	}

	/** A real user prompt (typed, or sent over RPC): it cancels a running review, joins the scope and resets the stalemate count. */
	userInput(text: string): void {
		this.cancel();
		this.stalemate = NO_STALEMATE;
		this.continuations = 0;
		const next = addPrompt(this.scope, text);
		if (next !== this.scope) {
			this.scope = next;
			this.deps.persist(SCOPE_ENTRY, { prompts: next.prompts });
		}
	}

	agentStart(ctx: Ctx): void {
		this.runStart ??= { leaf: ctx.sessionManager.getLeafId() };
	}

	async beforeTool(ctx: Ctx, toolName: string): Promise<void> {
		if (this.deps.settings(ctx).enabled) await this.gate?.beforeTool(toolName);
	}

	afterTool(ctx: Ctx, toolName: string, input: unknown, isError: boolean): void {
		const resolved = this.deps.settings(ctx);
		if (!resolved.enabled) return;
		this.gate?.afterTool(toolName, input, isError);
		this.cadence.onToolResult(ctx); // counts towards the next cadence review
		const path = (input as { path?: unknown } | undefined)?.path;
		if (!isError && resolved.settings.lsp.enabled && (toolName === "edit" || toolName === "write") && typeof path === "string") {
			this.lsp?.prefetch([isAbsolute(path) ? path : join(ctx.cwd, path)], resolved.settings.lsp.timeoutMs);
		}
	}

	async beforeSettle(ctx: Ctx, event: { entries: BoundaryResult["entries"]; continue: boolean; outcome: string }): Promise<BoundaryResult | undefined> {
		const runStart = this.runStart;
		this.runStart = undefined;
		this.cadence.cancel(); // the boundary review replaces a cadence review still running
		this.cadence.resetCount();
		const gate = this.gate;
		const resolved = this.deps.settings(ctx);
		if (!gate || !resolved.enabled || event.outcome === "aborted") {
			gate?.abandonRun();
			return undefined;
		}
		const verdict = await gate.finish();
		if (verdict.error) return this.problem(ctx, `could not tell whether the run changed the repository: ${verdict.error}`);
		if (!verdict.changed) return undefined;

		const settings = resolved.settings;
		// The LSP pre-pass needs no model: its findings stand even if the review below fails.
		const lsp = settings.lsp.enabled && this.lsp ? await this.lsp.check(verdict.paths, settings.lsp, repositoryTrust(ctx, this.deps.agentDir()).trusted) : undefined;
		const cancel = new AbortController();
		this.running = cancel;
		let outcome: ReviewOutcome;
		try {
			outcome = await this.modelReview(ctx, {
				paths: verdict.paths,
				since: runStart?.leaf ?? null,
				signals: lsp?.signal ? [lsp.signal] : [],
				note: verdict.via === "tools" ? "(Not a git repository: these are the paths of successful edit and write calls; bash changes are not seen.)" : undefined,
				cancel: cancel.signal,
			});
		} finally {
			if (this.running === cancel) this.running = undefined;
		}
		if (outcome.status === "cancelled") {
			this.deps.present(ctx, `Watchdog: review cancelled by ${this.cancelReason}.`, "info");
			return undefined;
		}
		if (outcome.malformed.length) this.deps.present(ctx, `Watchdog: the reviewer sent malformed findings (${outcome.malformed.join("; ")}).`, "warning");

		const findings = [...(lsp?.findings ?? []), ...outcome.findings];
		const stale = recordReview(this.stalemate, findings, settings.stalemateRepeats);
		if (outcome.status !== "failed" || findings.length) this.stalemate = stale.state;
		const plan = planDelivery({
			findings,
			threshold: settings.severityThreshold,
			stalemated: stale.stalemated,
			continuationBlocked: this.continuations >= MAX_CONTINUATIONS ? `the watchdog already continued this prompt ${MAX_CONTINUATIONS} times` : undefined,
			recentlyShown: this.history.recentFindings,
		});
		if (plan.continueRun) this.continuations++;
		const status = outcome.status === "clean" && findings.length ? "findings" : outcome.status; // LSP findings count too
		const record: ReviewRecord = { ...recordOf({ ...outcome, status, findings }, "boundary", verdict.paths), stalemateCount: stale.longest, stalemate: stale.stalemated.length > 0 };
		this.history = addRecord(this.history, record);
		if (outcome.failure) this.failed(ctx, outcome.failure, outcome.model);
		else {
			this.lastProblem = undefined;
			this.lastFailureKey = undefined;
		}
		if (stale.stalemated.length) {
			this.deps.present(ctx, `Watchdog stalemate: "${firstLine(stale.stalemated[0].summary, 120)}" was raised by ${stale.longest} reviews in a row. It is no longer sent to the agent; your next prompt resets this.`, "warning");
		}
		if (ctx.mode === "print" || ctx.mode === "json") for (const f of [...plan.toModel, ...plan.toUser]) this.deps.present(ctx, findingText(f), "info");
		return {
			entries: [...(event.entries ?? []), ...plan.entries, { type: "custom", customType: REVIEW_ENTRY, data: record }],
			continue: event.continue || plan.continueRun,
		};
	}

	/** One call of the reviewer model over the run since `since`, with scope, guidance and signals. */
	private async modelReview(ctx: Ctx, run: { paths: string[]; since: string | null; signals: string[]; note?: string; cancel: AbortSignal }): Promise<ReviewOutcome> {
		const settings = this.deps.settings(ctx).settings;
		const entries = entriesSince(ctx.sessionManager.getBranch() as unknown as Array<EntryLike & { id?: string }>, run.since);
		const input = buildReviewInput({
			changedPaths: run.paths,
			scope: settings.scope.enabled ? this.scope.prompts : [],
			guidance: settings.guidance.watchdogMd ? this.guidance(ctx) : undefined,
			delta: renderTurnDelta(entries, FINDING_MESSAGE),
			signals: [...run.signals, ...this.deps.signals()],
			note: run.note,
			nonce: randomBytes(6).toString("hex"),
		});
		const gate = this.gate;
		return runReview({
			registry: ctx.modelRegistry,
			choice: this.deps.reviewer(ctx),
			systemPrompt: loadPrompt("reviewer"),
			input,
			tools: createReviewerReadTools({ root: gate?.repo?.root ?? ctx.cwd, git: gate?.git, baseline: gate?.baseline ?? null }),
			timeoutMs: settings.agentEndTimeoutMs,
			cancel: run.cancel,
			source: "main",
		});
	}

	/** WATCHDOG.md files for this review; a file skipped for safety is announced once. */
	private guidance(ctx: Ctx): GuidanceFile[] {
		const read = readGuidance({ cwd: ctx.cwd, configDirName: this.deps.configDirName, agentDir: this.deps.agentDir(), trusted: repositoryTrust(ctx, this.deps.agentDir()).trusted });
		const skipped = read.skipped.join("\n");
		if (skipped && skipped !== this.guidanceSkipped) this.deps.present(ctx, `Watchdog: WATCHDOG.md not used: ${skipped}`, "warning");
		this.guidanceSkipped = skipped;
		return read.files;
	}

	/** A cadence review: the run so far, in the background; high findings are steered in. */
	private async cadenceReview(ctx: Ctx, cancel: AbortSignal): Promise<void> {
		const outcome = await this.modelReview(ctx, { paths: this.gate?.pendingPaths() ?? [], since: this.runStart?.leaf ?? null, signals: [], cancel });
		if (outcome.status === "cancelled" || cancel.aborted) return;
		const settings = this.deps.settings(ctx).settings;
		const plan = planDelivery({ findings: outcome.findings, threshold: settings.severityThreshold, stalemated: [], recentlyShown: this.history.recentFindings });
		const record: ReviewRecord = { ...recordOf(outcome, "cadence", this.gate?.pendingPaths() ?? []), stalemateCount: 0, stalemate: false };
		this.history = addRecord(this.history, record);
		if (outcome.failure) this.failed(ctx, outcome.failure, outcome.model);
		try {
			for (const entry of plan.entries) {
				if (entry.type === "custom_message") this.deps.steer({ customType: entry.customType, content: entry.content, display: entry.display, details: entry.details });
				else if (entry.type === "custom") this.deps.persist(entry.customType, entry.data);
			}
			this.deps.persist(REVIEW_ENTRY, record);
		} catch {
			// the session moved on (reload, new session): nothing to deliver to
		}
	}

	/** The kind of failure of the last review, if it failed (for the footer). */
	lastFailureKind(): string | undefined {
		return this.history.last?.status === "failed" ? this.history.last.failure?.kind : undefined;
	}

	/** Stops a running review (new input, shutdown, session switch). */
	cancel(reason = "new input"): void {
		if (this.running) this.cancelReason = reason;
		this.running?.abort();
		this.running = undefined;
		this.cadence.cancel();
	}

	/** Session end: stop the review and the language server. */
	async shutdown(): Promise<void> {
		this.cancel();
		await this.lsp?.shutdown();
	}

	sections(enabled: boolean, lspEnabled: boolean): StatusSection[] {
		return [reviewSection(this.history, enabled, this.lastProblem), findingsSection(this.history), lspSection(lspEnabled, this.lsp?.status())];
	}

	/** A failed review is announced once; the same failure again only updates status and footer. */
	private failed(ctx: Ctx, failure: NonNullable<ReviewOutcome["failure"]>, model: string): void {
		this.lastProblem = `review failed (${failure.kind}): ${firstLine(failure.message, 200)}`;
		const key = `${failure.kind}|${model}`;
		const repeated = key === this.lastFailureKey;
		this.lastFailureKey = key;
		if (repeated) return;
		this.deps.present(ctx, `Watchdog: the review failed (${failure.kind}): ${failure.message}\nThe run was not reviewed; the watchdog does not switch models by itself. See /subagents-watchdog check.`, "warning");
	}

	private problem(ctx: Ctx, message: string): undefined {
		this.lastProblem = message;
		this.deps.present(ctx, `Watchdog: ${message}`, "warning");
		return undefined;
	}
}

function recordOf(outcome: ReviewOutcome, trigger: ReviewRecord["trigger"], changedPaths: string[]): Omit<ReviewRecord, "stalemateCount" | "stalemate"> {
	return {
		at: Date.now(),
		trigger,
		status: outcome.status,
		model: outcome.model,
		thinking: outcome.thinking,
		durationMs: outcome.durationMs,
		usage: outcome.usage,
		changedPaths,
		findings: outcome.findings,
		...(outcome.failure ? { failure: outcome.failure } : {}),
	};
}

function entriesSince<T extends { id?: string }>(branch: T[], leaf: string | null): T[] {
	if (leaf === null) return branch;
	const at = branch.findIndex((e) => e.id === leaf);
	return at < 0 ? branch : branch.slice(at + 1);
}
