// A cadence review: the run so far, reviewed in the background while the agent works; what it
// finds goes to the sink (steered in after the current tool). Also the history line of a review.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { REVIEW_ENTRY, type ReviewRecord } from "../review/index.ts";
import type { HistoryLine, WatchdogSession } from "./watchdog-session.ts";

export async function cadenceReview(session: WatchdogSession, ctx: ExtensionContext, cancel: AbortSignal): Promise<void> {
	const run = session.monitors();
	const stop = () => session.review.cancel("the end of the run");
	cancel.addEventListener("abort", stop, { once: true });
	try {
		const result = await session.review.review(ctx, { trigger: "cadence", paths: run.gate?.pendingPaths() ?? [], since: run.startLeaf?.leaf ?? null, signals: session.loops.signals(), gate: run.gate });
		// Cancelled by the boundary (which reviews the whole run) or by new input: nothing to record.
		if (result.outcome.status === "cancelled" || cancel.aborted) return;
		const settings = session.settings(ctx).settings;
		session.sink.duringRun(ctx, result.outcome.findings, settings);
		const record = session.review.record(ctx, result, "cadence", result.outcome.findings, { count: 0, stalemate: false });
		session.recordHistory(ctx, historyOfReview(record));
		try {
			session.host.appendEntry(REVIEW_ENTRY, record);
		} catch {
			// the session moved on (reload, new session)
		}
	} finally {
		cancel.removeEventListener("abort", stop);
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
