// The two halves every boundary-style review shares, whether the run's end (settle.ts) or the
// user's `review` command (review-now.ts) started it: the LSP pre-pass then the model review
// over this run's paths and the pending ones; and afterwards, the record, its history line and
// the footer's word on it. Delivery in between differs, so it stays with the callers.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Finding } from "../findings/index.ts";
import type { ReviewRecord, ReviewResult } from "../review/index.ts";
import type { WatchdogSettings } from "../settings/index.ts";
import { outcomeLabel } from "./outcome-label.ts";
import { lspTrusted } from "./trust-step.ts";
import type { RunMonitors } from "./settle.ts";
import { settleMark } from "./settle-timing.ts";
import { historyOfReview, type WatchdogSession } from "./watchdog-session.ts";

export interface LspAndReview {
	result: ReviewResult;
	/** The LSP's findings and, unless the review was cancelled, the reviewer's. */
	findings: Finding[];
	cancelled: boolean;
}

export async function lspAndReview(
	session: WatchdogSession,
	run: RunMonitors,
	ctx: ExtensionContext,
	settings: WatchdogSettings,
	request: { trigger: ReviewRecord["trigger"]; paths: string[]; since: string | null; note?: string; signals?: string[]; clarification?: { activity: string[]; ask: boolean } },
): Promise<LspAndReview> {
	// The LSP pre-pass needs no model: its findings stand even if the review fails or is cancelled.
	const all = session.review.pathsFor(request.paths).paths;
	// The repository's own server and TypeScript run only as they were when you decided to trust it.
	const lsp = settings.lsp.enabled && run.lsp ? await run.lsp.check(all, settings.lsp, lspTrusted(session.trust, run.lsp.root)) : undefined;
	settleMark("lsp");
	const result = await session.review.review(ctx, { ...request, signals: [...(lsp?.signal ? [lsp.signal] : []), ...session.loops.signals(), ...(request.signals ?? [])], gate: run.gate });
	const cancelled = result.outcome.status === "cancelled";
	return { result, findings: [...(lsp?.findings ?? []), ...(cancelled ? [] : result.outcome.findings)], cancelled };
}

/** Records the review (pending changes, failures), writes its history line and sets the footer's word. */
export function closeReview(
	session: WatchdogSession,
	ctx: ExtensionContext,
	reviewed: LspAndReview,
	trigger: ReviewRecord["trigger"],
	delivered: { sent: Finding[]; shown: Finding[]; stalemateCount: number; stalemate: boolean; question?: { delivered: boolean } },
): ReviewRecord {
	const record = session.review.record(ctx, reviewed.result, trigger, reviewed.findings, { count: delivered.stalemateCount, stalemate: delivered.stalemate });
	session.recordHistory(ctx, historyOfReview(record));
	session.lastOutcome = outcomeLabel({ status: record.status, failureKind: record.failure?.kind, sent: delivered.sent, shown: delivered.shown, asked: delivered.question?.delivered });
	return record;
}
