// What an ask of the permission arbiter carries and how it ends, whichever model answers it
// (a chat model through arbiter.ts, a classifier through classifier-arbiter.ts).
import type { Registry, ReviewerChoice } from "../models/index.ts";

/** How an ask ended: the model's decision, or a failure (which denies). */
export type ArbiterOutcome =
	| { kind: "decision"; decision: "approve" | "deny"; reason: string; model: string }
	| { kind: "failure"; failure: FailureReason; reason: string; model?: string };

export type FailureReason = "watchdog-off" | "no-model" | "timeout" | "no-tool-call" | "malformed" | "error";

export interface AskRequest {
	registry: Registry;
	choice: ReviewerChoice;
	timeoutMs: number;
	role: string;
	task: string;
	tool: string;
	/** The redacted preview (previewArguments). */
	preview: string;
	/** "read src/app.ts", one per recent call, already redacted. */
	recent: string[];
	/** The rule that asked, in words. */
	rule: string;
	/** The child's run being stopped ends the wait at once (a deny). */
	cancel?: AbortSignal;
	/** `permissions.model` names a classifier: it decides instead of the chat model (classifier-arbiter.ts). */
	classifier?: { ref: string; threshold: number };
}
