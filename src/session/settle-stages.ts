// The settle's stages in their fixed order (rotation, evidence, change gate, pending paths, LSP,
// review), each given only what it needs of the session's parts.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { EvidenceWatch } from "../evidence/index.ts";
import type { Finding, FindingsSink } from "../findings/index.ts";
import type { SessionModelInfo } from "../models/index.ts";
import type { ActivityTail, ChangeGate, ModelReview } from "../review/index.ts";
import type { Rotation } from "../rotate/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import { gateStage, pendingStage } from "./change-steps.ts";
import { evidenceStage } from "./evidence-step.ts";
import type { Ctx, SettleStage } from "./monitor.ts";
import type { WatchdogHost } from "./options.ts";
import { lspStage, reviewStage } from "./review-stage.ts";
import type { ReviewDeps } from "./review-steps.ts";
import { rotationStage } from "./rotate-step.ts";

export interface StageParts {
	role: string;
	host: WatchdogHost;
	review: ModelReview;
	sink: FindingsSink;
	rotation: Rotation;
	evidence: EvidenceWatch;
	activity: ActivityTail;
	gate(): ChangeGate | undefined;
	settings(ctx: Ctx): ResolvedSettings;
	sessionModel(ctx: Ctx): SessionModelInfo;
	clarifying(ctx: Ctx): boolean;
	reviewDeps: ReviewDeps;
}

export function settleStages(parts: StageParts): SettleStage[] {
	const { role, host, review, sink, activity, reviewDeps } = parts;
	const nudgeLater = (ctx: ExtensionContext, finding: Finding) =>
		!!sink.duringRun(ctx, [finding], parts.settings(ctx).settings, undefined, true)?.toModel.includes(finding);
	const setModel = host.setModel;
	return [
		rotationStage({
			role,
			rotation: parts.rotation,
			latestPrompt: () => review.latestPrompt(),
			sink,
			...(setModel ? { setModel: (model) => setModel.call(host, model) } : {}),
			setThinkingLevel: (level) => host.setThinkingLevel?.(level),
		}),
		evidenceStage({ role, evidence: parts.evidence, sessionModel: (c) => parts.sessionModel(c), nudgeLater }),
		gateStage({ gate: parts.gate, problem: (ctx, text) => review.problem(ctx, text) }),
		pendingStage({
			hasPending: () => review.hasPending(),
			activityReviewStarted: () => activity.activityReviewStarted(),
		}),
		lspStage(reviewDeps),
		reviewStage(reviewDeps, {
			texts: () => activity.texts(),
			mayAsk: () => activity.mayAsk(),
			asked: () => activity.asked(),
			reviewed: () => activity.reviewed(),
			clarifying: parts.clarifying,
			stalemated: () => sink.stalemated(),
		}),
	];
}
