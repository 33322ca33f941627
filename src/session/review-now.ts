// `/subagents-watchdog review` (and the `watchdog.review` action): the boundary review now,
// over the pending changes, when the user does not want to wait for the next run's end. What
// it finds goes through the sink like any finding; a high one starts a run that answers it.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Finding } from "../findings/index.ts";
import { showReviewing } from "../host/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import { closeReview, keepReview, lspAndReview, type ReviewDeps } from "./review-steps.ts";

export interface ReviewNowDeps extends ReviewDeps {
	settings(ctx: ExtensionContext): ResolvedSettings;
	/** The sink, with the agent idle: the model's share starts a run. */
	deliver(
		ctx: ExtensionContext,
		findings: Finding[],
		settings: ResolvedSettings["settings"],
	): { toModel: Finding[]; toUser: Finding[] } | undefined;
	persist(type: string, data: unknown): void;
}

export async function reviewNow(
	deps: ReviewNowDeps,
	ctx: ExtensionContext,
): Promise<{ text: string; level: "info" | "warning" }> {
	const resolved = deps.settings(ctx);
	if (!resolved.enabled) return { text: "The watchdog is off, so nothing was reviewed.", level: "warning" };
	if (!deps.review.hasPending()) return { text: "Nothing pending: every change so far was reviewed.", level: "info" };
	const progress = showReviewing(ctx);
	try {
		const reviewed = await lspAndReview(deps, ctx, resolved.settings, { trigger: "command", paths: [], since: null });
		const plan = deps.deliver(ctx, reviewed.findings, resolved.settings);
		const sent = plan?.toModel ?? [];
		const shown = plan?.toUser ?? [];
		const record = closeReview(deps, ctx, reviewed, "command", { sent, shown, stalemateCount: 0, stalemate: false });
		keepReview(deps.persist, record);
		const paths = reviewed.result.paths;
		if (reviewed.cancelled) return { text: "The review was cancelled; the changes stay pending.", level: "warning" };
		if (record.status === "failed") {
			const why = `failed (${record.failure?.kind}); they stay pending. See /subagents-watchdog check.`;
			return { text: `The review of ${paths.length} path(s) ${why}`, level: "warning" };
		}
		if (!sent.length && !shown.length) return { text: `Reviewed ${paths.length} path(s): clean.`, level: "info" };
		const counts = `${sent.length} finding(s) sent to the agent, ${shown.length} shown to you`;
		return { text: `Reviewed ${paths.length} path(s): ${counts}.`, level: "info" };
	} finally {
		progress.stop();
	}
}
