// Reviewer models: references, the choice in effect, checking it, and the recommendation.
// Other folders import from here; files inside the folder import each other directly.
export { THINKING_LEVELS, isThinking, parseModelRef, type Thinking, type ThinkingSetting } from "./model-ref.ts";
export { modelFamily } from "./recommend.ts";
export { checkReviewer, chooseReviewer, describeChoice, recommendFor, type CheckResult, type Registry, type ReviewerChoice, type SessionModelInfo } from "./reviewer-model.ts";
