// The model review (a monitor): asks the reviewer model about the changed paths, with the
// user's scope, WATCHDOG.md, the deterministic signals and the run itself, under a deadline
// and a cancel signal. It keeps the session's scope, its review records and the pending
// changes: paths changed since the last review that completed. A cancelled or failed review
// leaves its paths pending, and the next review covers them and says so. It returns findings;
// the sink delivers them.
import { randomBytes } from "node:crypto";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { parseModelRef, type ReviewerChoice } from "../models/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import type { StatusSection } from "../util/index.ts";
import { FINDING_MESSAGE } from "../findings/index.ts";
import { type Finding, firstLine } from "../findings/index.ts";
import { type FileTrust, repositoryTrust } from "../host/index.ts";
import type { ChangeGate } from "./change-gate.ts";
import { type GuidanceFile, readGuidance } from "./guidance.ts";
import { type PendingChanges, pendingFromRecord, pendingSection, settlePending, takePending } from "./pending.ts";
import { loadPrompt } from "../model-call/index.ts";
import { buildReviewInput } from "./review-input.ts";
import { type ChangeReadAhead, changeFor, type RecordedChange, readAhead } from "./change-capture.ts";
import { changePaths } from "./change-text.ts";
import {
	addRecord,
	EMPTY_HISTORY,
	historyFromEntries,
	REVIEW_ENTRY,
	type ReviewHistory,
	type ReviewRecord,
	reviewSection,
} from "./review-record.ts";
import { type ReviewOutcome, runReview } from "./reviewer.ts";
import { addPrompt, EMPTY_SCOPE, type Scope, SCOPE_ENTRY, scopeFromEntries } from "./scope.ts";
import { createReviewerReadTools } from "./tools/reviewer-tools.ts";
import { type ToolsRoot, toolsRootFor } from "./tools-root.ts";
import { type EntryLike, renderTurnDelta } from "./turn-delta.ts";

export type ReviewCtx = Pick<
	ExtensionContext,
	"cwd" | "mode" | "ui" | "sessionManager" | "modelRegistry" | "model" | "thinkingLevel" | "isProjectTrusted"
>;
type Level = "info" | "warning" | "error";

export interface ModelReviewDeps {
	configDirName: string;
	agentDir: () => string;
	settings: (ctx: ReviewCtx) => ResolvedSettings;
	reviewer: (ctx: ReviewCtx) => ReviewerChoice;
	present: (ctx: ReviewCtx, text: string, level: Level) => void;
	persist: (customType: string, data: unknown) => void;
	/** "main" or the child role: the source of the findings. */
	role: string;
	/** A child's project (the parent's folder): the tools never look outside its repository. */
	project?: string;
	/** The session's trust in its project's files (snapshot at its start); without it, Pi's decision now. */
	trust?: () => FileTrust & { decided: boolean };
}

export interface ReviewRun {
	trigger: ReviewRecord["trigger"];
	/** Paths this run changed (the pending ones are added here). */
	paths: string[];
	/** Leaf entry when the run started: the run is what came after it. */
	since: string | null;
	signals: string[];
	note?: string;
	gate?: ChangeGate;
	/** Clarification on (main session): the activity tail, and whether `watchdog_ask` is offered. */
	clarification?: { activity: string[]; ask: boolean };
	/** The change read ahead (see `readAhead`): used when it is of the same paths and place. */
	readAhead?: ChangeReadAhead;
}

export interface ReviewResult {
	outcome: ReviewOutcome;
	/** Every path the review covered, carried-over ones included. */
	paths: string[];
	carriedOver: string[];
}

export class ModelReview {
	private readonly deps: ModelReviewDeps;
	private scope: Scope = EMPTY_SCOPE;
	private history: ReviewHistory = EMPTY_HISTORY;
	private pending: PendingChanges = new Map();
	private running?: AbortController;
	private cancelReason = "new input";
	private lastProblem?: string;
	/** Kind and model of the last failure announced: a rate limit's text changes every time, its meaning does not. */
	private lastFailureKey?: string;
	private guidanceSkipped = "";

	constructor(deps: ModelReviewDeps) {
		this.deps = deps;
	}

	sessionStart(entries: ReadonlyArray<{ type: string; customType?: string; data?: unknown }>): void {
		this.cancel();
		this.scope = scopeFromEntries(entries);
		this.history = historyFromEntries(entries);
		this.pending = pendingFromRecord(this.history);
		this.lastProblem = undefined;
		this.lastFailureKey = undefined;
	}

	/** A real user prompt: it cancels a running review and joins the scope. */
	userPrompt(text: string): void {
		this.cancel();
		const next = addPrompt(this.scope, text);
		if (next !== this.scope) {
			this.scope = next;
			this.deps.persist(SCOPE_ENTRY, { prompts: next.prompts });
		}
	}

	/** The user's latest request in the scope (the resume note after a rotation quotes it). */
	latestPrompt(): string | undefined {
		return this.scope.prompts.at(-1);
	}

	hasPending(): boolean {
		return this.pending.size > 0;
	}

	/** Paths to review now: this run's and the pending ones. */
	pathsFor(paths: string[]): { paths: string[]; carriedOver: string[] } {
		return takePending(this.pending, paths);
	}

	/** Starts reading the change a review of these paths will show (git), while other work goes on. */
	readAhead(ctx: ReviewCtx, runPaths: string[], gate?: ChangeGate): ChangeReadAhead | undefined {
		const { own, place } = this.place(ctx, gate);
		if (place.root !== own) return undefined;
		return readAhead({ root: own, git: gate?.git, baseline: gate?.baseline }, this.pathsFor(runPaths).paths);
	}

	/** Reviews the run; a cancelled review resolves too (status "cancelled"). */
	async review(ctx: ReviewCtx, run: ReviewRun): Promise<ReviewResult> {
		const { paths, carriedOver } = this.pathsFor(run.paths);
		const cancel = new AbortController();
		this.running = cancel;
		try {
			const outcome = await this.ask(ctx, run, paths, carriedOver, cancel.signal);
			return { outcome, paths, carriedOver };
		} finally {
			if (this.running === cancel) this.running = undefined;
		}
	}

	/**
	 * Records a finished review with every finding that came with it (LSP's too) and what
	 * the sink made of them; returns the record to keep in the session.
	 */
	record(
		ctx: ReviewCtx,
		result: ReviewResult,
		trigger: ReviewRecord["trigger"],
		findings: Finding[],
		stalemate: { count: number; stalemate: boolean },
	): ReviewRecord {
		const { outcome } = result;
		this.pending = settlePending(
			this.pending,
			result.paths,
			outcome.status === "failed"
				? `review failed (${outcome.failure?.kind})`
				: outcome.status === "cancelled"
					? `review cancelled by ${this.cancelReason}`
					: undefined,
		);
		if (outcome.status === "cancelled") {
			this.deps.present(
				ctx,
				`Watchdog: review cancelled by ${this.cancelReason}; its ${result.paths.length} ` +
					`changed path(s) stay pending for the next review.`,
				"info",
			);
		}
		if (outcome.malformed.length)
			this.deps.present(
				ctx,
				`Watchdog: the reviewer sent malformed findings (${outcome.malformed.join("; ")}).`,
				"warning",
			);
		// LSP findings count too
		const status = outcome.status === "clean" && findings.length ? "findings" : outcome.status;
		const record: ReviewRecord = {
			at: Date.now(),
			trigger,
			status,
			model: outcome.model,
			thinking: outcome.thinking,
			durationMs: outcome.durationMs,
			usage: outcome.usage,
			changedPaths: result.paths,
			...(result.carriedOver.length ? { carriedOver: result.carriedOver } : {}),
			findings,
			...(outcome.question ? { question: outcome.question } : {}),
			...(outcome.failure ? { failure: outcome.failure } : {}),
			stalemateCount: stalemate.count,
			stalemate: stalemate.stalemate,
			...(this.pending.size ? { pending: Object.fromEntries(this.pending) } : {}),
		};
		this.history =
			outcome.status === "cancelled" ? { ...this.history, pending: record.pending } : addRecord(this.history, record);
		if (outcome.fellBack?.length) this.fellBack(ctx, outcome.fellBack, outcome.model);
		if (outcome.failure) this.failed(ctx, outcome.failure, outcome.model);
		else if (outcome.status !== "cancelled") {
			this.lastProblem = undefined;
			this.lastFailureKey = undefined;
		}
		return record;
	}

	/** A problem before any review could run (e.g. git status failed): shown and kept for status. */
	problem(ctx: ReviewCtx, message: string): void {
		this.lastProblem = message;
		this.deps.present(ctx, `Watchdog: ${message}`, "warning");
	}

	/** The kind of failure of the last review, if it failed (for the footer). */
	lastFailureKind(): string | undefined {
		return this.history.last?.status === "failed" ? this.history.last.failure?.kind : undefined;
	}

	/** Stops a running review (new input, a model change, shutdown, session switch). */
	cancel(reason = "new input"): void {
		if (this.running) this.cancelReason = reason;
		this.running?.abort();
		this.running = undefined;
	}

	/** One line for the short status: when, what came of it, how long, what it cost. */
	lastReviewLine(): string {
		const last = this.history.last;
		if (!last) return "none this session";
		const when = new Date(last.at).toISOString().slice(11, 19);
		const outcome =
			last.status === "failed"
				? `failed (${last.failure?.kind})`
				: last.status === "findings"
					? `${last.findings.length} finding(s)`
					: last.status;
		return (
			`${when}, ${outcome}, ${(last.durationMs / 1000).toFixed(1)} s, $${last.usage.cost.toFixed(4)} ` +
			`(${this.history.reviews} this session, $${this.history.totalCost.toFixed(4)})`
		);
	}

	/** One line for the short status. */
	pendingLine(): string {
		if (!this.pending.size) return "nothing";
		const why = [...new Set(this.pending.values())].join("; ");
		const paths = [...this.pending.keys()];
		return `${paths.length} path(s) (${why}): ${paths.slice(0, 4).join(", ")}${paths.length > 4 ? ", …" : ""}`;
	}

	sections(enabled: boolean): StatusSection[] {
		return [reviewSection(this.history, enabled, this.lastProblem), pendingSection(this.pending)];
	}

	/** One call of the reviewer model over the run since `run.since`, with scope, guidance and signals. */
	private async ask(
		ctx: ReviewCtx,
		run: ReviewRun,
		paths: string[],
		carriedOver: string[],
		cancel: AbortSignal,
	): Promise<ReviewOutcome> {
		const settings = this.deps.settings(ctx).settings;
		const entries = entriesSince(
			ctx.sessionManager.getBranch() as unknown as Array<EntryLike & { id?: string }>,
			run.since,
		);
		const gate = run.gate;
		const { own, place } = this.place(ctx, gate);
		// The gate's git runner and baseline belong to the child's own tree: not used elsewhere.
		const tools = createReviewerReadTools(
			place.root === own
				? { root: own, git: gate?.git, baseline: gate?.baseline ?? null }
				: { root: place.root, baseline: null },
		);
		// The change itself, as watchdog_diff would show it for these paths (the one git call here).
		const change: RecordedChange =
			place.root === own
				? await changeFor({ root: own, git: gate?.git, baseline: gate?.baseline }, paths, cancel, run.readAhead)
				: { absent: "the child worked outside this project; read the changed paths with `read`" };
		const scope = settings.scope.enabled ? this.scope.prompts : [];
		const input = buildReviewInput({
			changedPaths: paths,
			carriedOver,
			change,
			scope,
			guidance: settings.guidance.watchdogMd ? this.guidance(ctx) : undefined,
			delta: renderTurnDelta(entries, FINDING_MESSAGE, {
				prompts: scope,
				shownFiles: changePaths(change),
				cwd: ctx.cwd,
				root: own,
			}),
			signals: run.signals,
			note: [run.note, place.note].filter(Boolean).join("\n") || undefined,
			activity: run.clarification?.activity,
			nonce: randomBytes(6).toString("hex"),
		});
		const clarify = run.clarification;
		// Off, the reviewer's prompt and tools are exactly what they were without clarification.
		const prompt = [
			loadPrompt("reviewer"),
			...(clarify ? [loadPrompt("reviewer-clarification")] : []),
			...(clarify?.ask ? [loadPrompt("reviewer-ask")] : []),
		].join("\n\n");
		const choice = this.deps.reviewer(ctx);
		return runReview({
			registry: ctx.modelRegistry,
			choice,
			fallbacks: fallbackChoices(settings.fallbackModels, choice),
			systemPrompt: prompt,
			ask: clarify?.ask ?? false,
			input,
			tools,
			timeoutMs: settings.agentEndTimeoutMs,
			cancel,
			source: this.deps.role,
		});
	}

	/** The repository the run changed, and where the reviewer's tools may look (a child's: its parent's project). */
	private place(ctx: ReviewCtx, gate?: ChangeGate): { own: string; place: ToolsRoot } {
		const own = gate?.repo?.root ?? ctx.cwd;
		return { own, place: this.deps.project ? toolsRootFor(own, this.deps.project) : { root: own } };
	}

	/** WATCHDOG.md files for this review; a file skipped for safety is announced once. */
	private guidance(ctx: ReviewCtx): GuidanceFile[] {
		const trust = this.deps.trust?.();
		const trusted = trust ? trust.decided : repositoryTrust(ctx, this.deps.agentDir()).trusted;
		const read = readGuidance({
			cwd: ctx.cwd,
			configDirName: this.deps.configDirName,
			agentDir: this.deps.agentDir(),
			trusted,
			...(trust ? { trust } : {}),
		});
		const skipped = read.skipped.join("\n");
		if (skipped && skipped !== this.guidanceSkipped)
			this.deps.present(ctx, `Watchdog: WATCHDOG.md not used: ${skipped}`, "warning");
		this.guidanceSkipped = skipped;
		return read.files;
	}

	/** A review a fallback model did is announced once per chain of failures: the configured reviewer needs attention. */
	private fellBack(ctx: ReviewCtx, failed: NonNullable<ReviewOutcome["fellBack"]>, model: string): void {
		const key = `fallback|${failed.map((f) => `${f.model}:${f.kind}`).join(",")}|${model}`;
		if (key === this.lastFailureKey) return;
		this.lastFailureKey = key;
		const why = failed.map((f) => `${f.model} failed (${f.kind}): ${firstLine(f.message, 160)}`).join("; ");
		const text =
			`Watchdog: ${why}. This review ran on the fallback ${model} (fallbackModels). ` +
			`See /subagents-watchdog check.`;
		this.deps.present(ctx, text, "warning");
	}

	/** A failed review is announced once per kind and model; again, it only updates status and footer. */
	private failed(ctx: ReviewCtx, failure: NonNullable<ReviewOutcome["failure"]>, model: string): void {
		this.lastProblem = `review failed (${failure.kind}): ${firstLine(failure.message, 200)}`;
		const key = `${failure.kind}|${model}`;
		const repeated = key === this.lastFailureKey;
		this.lastFailureKey = key;
		if (repeated) return;
		const text = [
			`Watchdog: the review failed (${failure.kind}): ${failure.message}`,
			"The run was not reviewed; its changes stay pending for the next review. The " +
				"watchdog does not switch models by itself",
			"(only to fallbackModels, before any tool work). See /subagents-watchdog check.",
		];
		this.deps.present(ctx, `${text[0]}\n${text[1]} ${text[2]}`, "warning");
	}
}

export { REVIEW_ENTRY };

/** `fallbackModels` as reviewer choices: a model's own `:thinking`, else the reviewer's level. */
function fallbackChoices(refs: string[], primary: ReviewerChoice): ReviewerChoice[] {
	return refs.flatMap((text) => {
		const parsed = parseModelRef(text);
		if (!parsed.ok) return [];
		const { provider, id } = parsed.ref;
		return [{ kind: "configured" as const, provider, id, thinking: parsed.ref.thinking ?? primary.thinking }];
	});
}

function entriesSince<T extends { id?: string }>(branch: T[], leaf: string | null): T[] {
	if (leaf === null) return branch;
	const at = branch.findIndex((e) => e.id === leaf);
	return at < 0 ? branch : branch.slice(at + 1);
}
