// A cadence review: the run so far, reviewed in the background while the agent works; what it
// finds goes to the sink (steered in after the current tool).
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Finding } from "../findings/index.ts";
import { closeReview, keepReview, modelReview, type ReviewDeps } from "./review-steps.ts";

export interface CadenceDeps extends ReviewDeps {
	/** The sink, during a run. */
	deliver(ctx: ExtensionContext, findings: Finding[]): void;
	persist(type: string, data: unknown): void;
}

export async function cadenceReview(deps: CadenceDeps, ctx: ExtensionContext, cancel: AbortSignal): Promise<void> {
	const run = deps.repo();
	const stop = () => deps.review.cancel("the end of the run");
	cancel.addEventListener("abort", stop, { once: true });
	try {
		const paths = run.gate?.pendingPaths() ?? [];
		const request = { trigger: "cadence" as const, paths, since: run.startLeaf?.leaf ?? null };
		const result = await modelReview(deps, ctx, request);
		// Cancelled by the boundary (which reviews the whole run) or by new input: nothing to record.
		if (result.outcome.status === "cancelled" || cancel.aborted) return;
		deps.deliver(ctx, result.outcome.findings);
		const reviewed = { result, findings: result.outcome.findings, cancelled: false };
		const delivered = { sent: [], shown: [], stalemateCount: 0, stalemate: false };
		keepReview(deps.persist, closeReview(deps, ctx, reviewed, "cadence", delivered));
	} finally {
		cancel.removeEventListener("abort", stop);
	}
}
