// The settle stages that decide whether there is anything to review: the change gate (did the
// run, or an earlier unreviewed one, change anything?) and the pending paths a review that did
// not complete left behind. A run that changed nothing is still reviewed when it orchestrated
// children with clarification on, once per user prompt.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { showReviewing } from "../host/index.ts";
import type { ChangeGate } from "../review/index.ts";
import type { SettleStage } from "./monitor.ts";
import { settleMark } from "./settle-timing.ts";

export interface GateDeps {
	gate(): ChangeGate | undefined;
	/** The review's status shows the gate's trouble. */
	problem(ctx: ExtensionContext, text: string): void;
}

export function gateStage(deps: GateDeps): SettleStage {
	return {
		name: "gate",
		async settle(run) {
			const gate = deps.gate();
			if (!gate) {
				run.done = true;
				return;
			}
			const verdict = await gate.finish();
			settleMark("gate");
			if (verdict.error) {
				deps.problem(run.ctx, `could not tell whether the run changed the repository: ${verdict.error}`);
				run.record({ kind: "failure", what: "change gate", message: verdict.error });
				run.done = true;
				return;
			}
			run.gate = { changed: verdict.changed, paths: verdict.paths, via: verdict.via };
		},
	};
}

export interface PendingDeps {
	hasPending(): boolean;
	/** An activity review starts: this prompt's orchestration is being looked at. */
	activityReviewStarted(): void;
}

/** Nothing changed and nothing is left over from a review that did not complete: the settle ends here. */
export function pendingStage(deps: PendingDeps): SettleStage {
	return {
		name: "pending",
		settle(run) {
			const verdict = run.gate;
			if (!verdict) {
				run.done = true;
				return;
			}
			const edited = verdict.changed || deps.hasPending();
			if (!edited && !(run.clarify && run.activityDue)) {
				run.done = true;
				return;
			}
			if (!edited) deps.activityReviewStarted();
			run.changes = { trigger: edited ? "boundary" : "activity", paths: verdict.paths, via: verdict.via };
			const progress = showReviewing(run.ctx);
			run.cleanup.push(() => progress.stop());
		},
	};
}
