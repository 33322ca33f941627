// `/subagents-watchdog review` (and the `watchdog.review` action): the boundary review now,
// over the pending changes, when the user does not want to wait for the next run's end. What
// it finds goes through the sink like any finding; a high one starts a run that answers it.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { showReviewing } from "../host/index.ts";
import { REVIEW_ENTRY } from "../review/index.ts";
import { closeReview, lspAndReview } from "./review-steps.ts";
import type { WatchdogSession } from "./watchdog-session.ts";

export async function reviewNow(session: WatchdogSession, ctx: ExtensionContext): Promise<{ text: string; level: "info" | "warning" }> {
	const resolved = session.settings(ctx);
	if (!resolved.enabled) return { text: "The watchdog is off, so nothing was reviewed.", level: "warning" };
	if (!session.review.hasPending()) return { text: "Nothing pending: every change so far was reviewed.", level: "info" };
	const progress = showReviewing(ctx);
	try {
		const reviewed = await lspAndReview(session, session.monitors(), ctx, resolved.settings, { trigger: "command", paths: [], since: null });
		const plan = session.sink.duringRun(ctx, reviewed.findings, resolved.settings, undefined, true);
		const sent = plan?.toModel ?? [];
		const shown = plan?.toUser ?? [];
		const record = closeReview(session, ctx, reviewed, "command", { sent, shown, stalemateCount: 0, stalemate: false });
		session.host.appendEntry(REVIEW_ENTRY, record);
		const paths = reviewed.result.paths;
		if (reviewed.cancelled) return { text: "The review was cancelled; the changes stay pending.", level: "warning" };
		if (record.status === "failed") return { text: `The review of ${paths.length} path(s) failed (${record.failure?.kind}); they stay pending. See /subagents-watchdog check.`, level: "warning" };
		if (!sent.length && !shown.length) return { text: `Reviewed ${paths.length} path(s): clean.`, level: "info" };
		return { text: `Reviewed ${paths.length} path(s): ${sent.length} finding(s) sent to the agent, ${shown.length} shown to you.`, level: "info" };
	} finally {
		progress.stop();
	}
}
