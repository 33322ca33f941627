// The boundary review of one session: at each settle boundary, if the run changed the
// repository, ask the reviewer model about it and route what it finds. Holds the session's
// scope, review history and stalemate count; everything else is delegated to pure parts.
import type { BoundaryResult, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ReviewerChoice } from "../models/reviewer-model.ts";
import type { ResolvedSettings } from "../settings/resolve.ts";
import type { StatusSection } from "../status/status-text.ts";
import { LspManager } from "../lsp/lsp-manager.ts";
import { lspSection } from "../lsp/lsp-status.ts";
import { ChangeGate } from "./change-gate.ts";
import { FINDING_MESSAGE, planDelivery } from "./delivery.ts";
import { findingText, firstLine } from "./finding.ts";
import { readGuidance } from "./guidance.ts";
import { loadPrompt } from "./prompts.ts";
import { buildReviewInput } from "./review-input.ts";
import { addRecord, EMPTY_HISTORY, findingsSection, historyFromEntries, REVIEW_ENTRY, type ReviewHistory, type ReviewRecord, reviewSection } from "./review-record.ts";
import { runReview } from "./reviewer.ts";
import { addPrompt, EMPTY_SCOPE, type Scope, SCOPE_ENTRY, scopeFromEntries } from "./scope.ts";
import { NO_STALEMATE, recordReview, type StalemateState } from "./stalemate.ts";
import { createReviewerReadTools } from "./tools/reviewer-tools.ts";
import { type EntryLike, renderTurnDelta } from "./turn-delta.ts";

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
	private lastProblem?: string;
	private lsp?: LspManager;

	constructor(deps: BoundaryDeps) {
		this.deps = deps;
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
		const artifacts = `${this.deps.configDirName}-subagents/`;
		this.gate = new ChangeGate({ cwd: ctx.cwd, ignore: (p) => p.startsWith(artifacts) || p.startsWith("tmp/") || p.startsWith(".git/") || /(^|\/)node_modules\//.test(p) });
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
		if (this.deps.settings(ctx).enabled) this.gate?.afterTool(toolName, input, isError);
	}

	async beforeSettle(ctx: Ctx, event: { entries: BoundaryResult["entries"]; continue: boolean; outcome: string }): Promise<BoundaryResult | undefined> {
		const runStart = this.runStart;
		this.runStart = undefined;
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
		const lsp = settings.lsp.enabled && this.lsp ? await this.lsp.check(verdict.paths, settings.lsp) : undefined;
		const entries = entriesSince(ctx.sessionManager.getBranch() as unknown as Array<EntryLike & { id?: string }>, runStart?.leaf ?? null);
		const input = buildReviewInput({
			changedPaths: verdict.paths,
			scope: settings.scope.enabled ? this.scope.prompts : [],
			guidance: settings.guidance.watchdogMd ? readGuidance(ctx.cwd, this.deps.configDirName, this.deps.agentDir()) : undefined,
			delta: renderTurnDelta(entries, FINDING_MESSAGE),
			signals: lsp?.signal ? [lsp.signal] : [],
			note: verdict.via === "tools" ? "(Not a git repository: these are the paths of successful edit and write calls; bash changes are not seen.)" : undefined,
		});
		const cancel = new AbortController();
		this.running = cancel;
		let outcome: Awaited<ReturnType<typeof runReview>>;
		try {
			outcome = await runReview({
				registry: ctx.modelRegistry,
				choice: this.deps.reviewer(ctx),
				systemPrompt: loadPrompt("reviewer"),
				input,
				tools: createReviewerReadTools({ root: gate.repo?.root ?? ctx.cwd, git: gate.git, baseline: gate.baseline ?? null }),
				timeoutMs: settings.agentEndTimeoutMs,
				cancel: cancel.signal,
				source: "main",
			});
		} finally {
			if (this.running === cancel) this.running = undefined;
		}
		if (outcome.status === "cancelled") {
			this.deps.present(ctx, "Watchdog: review cancelled by new input.", "info");
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
		const record: ReviewRecord = {
			at: Date.now(),
			trigger: "boundary",
			status: outcome.status,
			model: outcome.model,
			thinking: outcome.thinking,
			durationMs: outcome.durationMs,
			usage: outcome.usage,
			changedPaths: verdict.paths,
			findings,
			...(outcome.failure ? { failure: outcome.failure } : {}),
			stalemateCount: stale.longest,
			stalemate: stale.stalemated.length > 0,
		};
		this.history = addRecord(this.history, record);
		if (outcome.failure) {
			this.lastProblem = `review failed (${outcome.failure.kind}): ${firstLine(outcome.failure.message, 200)}`;
			this.deps.present(ctx, `Watchdog: the review failed (${outcome.failure.kind}): ${outcome.failure.message}\nThe run was not reviewed; the watchdog does not switch models by itself. See /subagents-watchdog check.`, "warning");
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

	/** The kind of failure of the last review, if it failed (for the footer). */
	lastFailureKind(): string | undefined {
		return this.history.last?.status === "failed" ? this.history.last.failure?.kind : undefined;
	}

	/** Stops a running review (new input, shutdown, session switch). */
	cancel(): void {
		this.running?.abort();
		this.running = undefined;
	}

	/** Session end: stop the review and the language server. */
	async shutdown(): Promise<void> {
		this.cancel();
		await this.lsp?.shutdown();
	}

	sections(enabled: boolean, lspEnabled: boolean): StatusSection[] {
		return [reviewSection(this.history, enabled, this.lastProblem), findingsSection(this.history), lspSection(lspEnabled, this.lsp?.status())];
	}

	private problem(ctx: Ctx, message: string): undefined {
		this.lastProblem = message;
		this.deps.present(ctx, `Watchdog: ${message}`, "warning");
		return undefined;
	}
}

function entriesSince<T extends { id?: string }>(branch: T[], leaf: string | null): T[] {
	if (leaf === null) return branch;
	const at = branch.findIndex((e) => e.id === leaf);
	return at < 0 ? branch : branch.slice(at + 1);
}
