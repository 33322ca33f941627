// `/subagents-watchdog review` (and the `watchdog.review` action): the boundary review now,
// over the pending changes, when the user does not want to wait for the next run's end. What
// it finds goes through the sink like any finding; a high one starts a run that answers it.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { repositoryTrust, showReviewing } from "../host/index.ts";
import { REVIEW_ENTRY } from "../review/index.ts";
import { outcomeLabel } from "./outcome-label.ts";
import { historyOfReview, type WatchdogSession } from "./watchdog-session.ts";

export async function reviewNow(session: WatchdogSession, ctx: ExtensionContext): Promise<{ text: string; level: "info" | "warning" }> {
	const resolved = session.settings(ctx);
	if (!resolved.enabled) return { text: "The watchdog is off, so nothing was reviewed.", level: "warning" };
	if (!session.review.hasPending()) return { text: "Nothing pending: every change so far was reviewed.", level: "info" };
	const settings = resolved.settings;
	const run = session.monitors();
	const progress = showReviewing(ctx);
	try {
		const paths = session.review.pathsFor([]).paths;
		const lsp = settings.lsp.enabled && run.lsp ? await run.lsp.check(paths, settings.lsp, repositoryTrust(ctx, session.store.agentDir()).trusted) : undefined;
		const result = await session.review.review(ctx, { trigger: "command", paths: [], since: null, signals: [...(lsp?.signal ? [lsp.signal] : []), ...session.loops.signals()], gate: run.gate });
		const cancelled = result.outcome.status === "cancelled";
		const findings = [...(lsp?.findings ?? []), ...(cancelled ? [] : result.outcome.findings)];
		const plan = session.sink.duringRun(ctx, findings, settings, undefined, true);
		const sent = plan?.toModel ?? [];
		const shown = plan?.toUser ?? [];
		const record = session.review.record(ctx, result, "command", findings, { count: 0, stalemate: false });
		session.recordHistory(ctx, historyOfReview(record));
		session.host.appendEntry(REVIEW_ENTRY, record);
		session.lastOutcome = outcomeLabel({ status: record.status, failureKind: record.failure?.kind, sent, shown });
		if (cancelled) return { text: "The review was cancelled; the changes stay pending.", level: "warning" };
		if (record.status === "failed") return { text: `The review of ${paths.length} path(s) failed (${record.failure?.kind}); they stay pending. See /subagents-watchdog check.`, level: "warning" };
		if (!sent.length && !shown.length) return { text: `Reviewed ${paths.length} path(s): clean.`, level: "info" };
		return { text: `Reviewed ${paths.length} path(s): ${sent.length} finding(s) sent to the agent, ${shown.length} shown to you.`, level: "info" };
	} finally {
		progress.stop();
	}
}
