// The two halves every boundary-style review shares, whether the run's end (review-stage.ts),
// the user's `review` command (review-now.ts) or the cadence started it: the LSP pre-pass then
// the model review over this run's paths and the pending ones; and afterwards, the record, its
// history line and the footer's word on it. Delivery in between differs, so it stays with the callers.
import type { ExtensionContext, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import type { Finding } from "../findings/index.ts";
import type { ProjectTrust } from "../host/index.ts";
import {
	type ChangeReadAhead,
	type ModelReview,
	REVIEW_ENTRY,
	type ReviewRecord,
	type ReviewResult,
} from "../review/index.ts";
import type { WatchdogSettings } from "../settings/index.ts";
import type { Delivered, HistoryLine } from "./monitor.ts";
import { skipFinding, skipReason, typedFiles } from "./lsp-skip.ts";
import { outcomeLabel } from "./outcome-label.ts";
import type { RunMonitors } from "./repo-monitors.ts";
import { settleMark } from "./settle-timing.ts";
import { lspTrusted } from "./trust-step.ts";

/** What a review needs of the session: the reviewer, the repository's monitors, the loop signals. */
export interface ReviewDeps {
	review: ModelReview;
	repo(): RunMonitors;
	trust(): ProjectTrust;
	loopSignals(): string[];
	record(ctx: ExtensionContext, line: HistoryLine): void;
	/** The footer's word on the last review. */
	outcome(label: string): void;
}

export type ReviewRequest = {
	trigger: ReviewRecord["trigger"];
	paths: string[];
	since: string | null;
	note?: string;
	signals?: string[];
	clarification?: { activity: string[]; ask: boolean };
	/** The change read while the LSP pre-pass ran. */
	readAhead?: ChangeReadAhead;
};

export interface LspAndReview {
	result: ReviewResult;
	/** The LSP's findings and, unless the review was cancelled, the reviewer's. */
	findings: Finding[];
	cancelled: boolean;
	/** Why the type check did not run on files it should have checked. */
	lspSkipped?: string;
}

/** The LSP pre-pass over the review's paths and the pending ones; it needs no model. */
export async function lspCheck(
	deps: ReviewDeps,
	settings: WatchdogSettings,
	paths: string[],
): Promise<{ signal?: string; findings: Finding[]; skipped?: string }> {
	const all = deps.review.pathsFor(paths).paths;
	const lsp = deps.repo().lsp;
	// The repository's own server and TypeScript run only as they were when you decided to trust it.
	const on = settings.lsp.enabled ? lsp : undefined;
	const checked = on ? await on.check(all, settings.lsp, lspTrusted(deps.trust(), on.root)) : undefined;
	settleMark("lsp");
	const typed = on ? typedFiles(on.root, all) : [];
	const skipped = on && skipReason(typed, checked?.checked, checked?.skipped ?? on.status().lastResult);
	if (skipped) {
		const signal = `The type check did not run (${skipped}): do not take the TypeScript files as type-correct.`;
		return { signal, findings: [...(checked?.findings ?? []), skipFinding(skipped, typed)], skipped };
	}
	// No result is said in one line, so the reviewer can tell "nothing found" from "not run".
	const why = !settings.lsp.enabled
		? "off (lsp.enabled is false)"
		: `not run: ${checked?.skipped ?? "not available here"}`;
	return { signal: checked?.signal ?? `LSP pre-pass: ${why}.`, findings: checked?.findings ?? [] };
}

/**
 * Starts reading the change the review will show (git diff-index, ls-files) before the LSP pre-pass: the two
 * do not depend on each other, and the reviewer gets the same input either way.
 */
export function readAheadFor(
	deps: ReviewDeps,
	ctx: ExtensionContext,
	paths: string[],
): { readAhead?: ChangeReadAhead } {
	const readAhead = deps.review.readAhead(ctx, paths, deps.repo().gate);
	return readAhead ? { readAhead } : {};
}

/** The model review, with the LSP's signal first, then the loops', then the request's. */
export async function modelReview(
	deps: ReviewDeps,
	ctx: ExtensionContext,
	request: ReviewRequest,
	lspSignal?: string,
): Promise<ReviewResult> {
	const signals = [...(lspSignal ? [lspSignal] : []), ...deps.loopSignals(), ...(request.signals ?? [])];
	return deps.review.review(ctx, { ...request, signals, gate: deps.repo().gate });
}

export async function lspAndReview(
	deps: ReviewDeps,
	ctx: ExtensionContext,
	settings: WatchdogSettings,
	request: ReviewRequest,
): Promise<LspAndReview> {
	// The LSP's findings stand even if the review fails or is cancelled.
	const ahead = readAheadFor(deps, ctx, request.paths);
	const lsp = await lspCheck(deps, settings, request.paths);
	const result = await modelReview(deps, ctx, { ...request, ...ahead }, lsp.signal);
	const cancelled = result.outcome.status === "cancelled";
	const findings = [...lsp.findings, ...(cancelled ? [] : result.outcome.findings)];
	return { result, findings, cancelled, ...(lsp.skipped ? { lspSkipped: lsp.skipped } : {}) };
}

/** Records the review (pending changes, failures), writes its history line and sets the footer's word. */
export function closeReview(
	deps: ReviewDeps,
	ctx: ExtensionContext,
	reviewed: LspAndReview,
	trigger: ReviewRecord["trigger"],
	delivered: Delivered,
): ReviewRecord {
	const stalemate = { count: delivered.stalemateCount, stalemate: delivered.stalemate };
	const record = deps.review.record(ctx, reviewed.result, trigger, reviewed.findings, stalemate);
	deps.record(ctx, historyOfReview(record));
	// A cadence review runs mid-run: the footer keeps the last boundary review's word until the run ends.
	if (trigger === "cadence") return record;
	const asked = delivered.question?.delivered;
	const { sent, shown } = delivered;
	const lspSkipped = reviewed.lspSkipped;
	deps.outcome(
		outcomeLabel({ status: record.status, failureKind: record.failure?.kind, sent, shown, asked, lspSkipped }),
	);
	return record;
}

/** A review's record as a session entry: the boundary returns it with its delivery, the others keep it at once. */
export function reviewEntry(record: ReviewRecord): SessionBoundaryDraft {
	return { type: "custom", customType: REVIEW_ENTRY, data: record };
}

/** Keeps a review's record outside the settle boundary (the `review` command, a cadence review). */
export function keepReview(persist: (type: string, data: unknown) => void, record: ReviewRecord): void {
	try {
		persist(REVIEW_ENTRY, record);
	} catch {
		// the session moved on (reload, new session): the history line has it
	}
}

/** The history line of one review. */
export function historyOfReview(record: ReviewRecord): HistoryLine {
	return {
		kind: "review",
		trigger: record.trigger,
		model: record.model,
		thinking: record.thinking,
		durationMs: record.durationMs,
		tokens: record.usage.totalTokens,
		cost: record.usage.cost,
		outcome: record.status,
		paths: record.changedPaths.length,
		...(record.carriedOver?.length ? { carriedOver: record.carriedOver.length } : {}),
		...(record.failure ? { failure: record.failure } : {}),
	};
}
