// The model review: the change gate, the reviewer call with its read-only tools, and its records;
// also the nudge the watchdog model writes when idle.model is set.
// Other folders import from here; files inside the folder import each other directly.
export { ChangeGate } from "./change-gate.ts";
export type { ChangeReadAhead } from "./change-capture.ts";
export { ModelReview, type ReviewResult } from "./model-review.ts";
export { REVIEW_ENTRY, type ReviewRecord } from "./review-record.ts";
export { writeNudge, type NudgeOutcome, type NudgeRequest } from "./nudge-writer.ts";
export { runReview, type ReviewerToolLike, type ReviewOutcome } from "./reviewer.ts";
export { createReviewerReadTools } from "./tools/reviewer-tools.ts";
export { projectRoot, toolsRootFor, type ToolsRoot } from "./tools-root.ts";
export { GUIDANCE_FILE, GUIDANCE_READ_BYTES } from "./guidance.ts";
export { ActivityTail, type TurnLike } from "./activity-tail.ts";
