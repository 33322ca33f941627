// Reviewer models: references, the choice in effect, checking it, and the recommendation.
// Other folders import from here; files inside the folder import each other directly.
export { THINKING_LEVELS, formatModelRef, isBareModelId, isThinking, parseModelRef, splitBareId } from "./model-ref.ts";
export type { Thinking, ThinkingSetting } from "./model-ref.ts";
export { availableModels, findBareId, type ModelLookup } from "./bare-id.ts";
export { modelFamily } from "./recommend.ts";
export {
	checkReviewer,
	chooseReviewer,
	describeChoice,
	recommendFor,
	type CheckResult,
	type Registry,
	type ReviewerChoice,
	type SessionModelInfo,
} from "./reviewer-model.ts";
export { classifyFailure, isAccountLimit, longRetryAfter, type FailureKind } from "./failure.ts";
export { formatLiveCheck, liveCheck, LIVE_CHECK_TIMEOUT_MS, type LiveCheck } from "./live-check.ts";
export { UnknownModelError, unknownModel } from "./suggest.ts";
