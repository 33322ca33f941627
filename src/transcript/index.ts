// The transcript as the detectors see it, whatever recorded it: `SessionEvent` (prompts,
// assistant text, tool calls), the `ToolCallRecord` of one call, building records from
// recorded calls, pairing calls with their results, and the one reader of Pi messages used for
// a live session's branch (evidence) and a recorded session file (scan).
// Other folders import from here; files inside the folder import each other directly.
export {
	argsObject,
	callKind,
	fromPiToolCall,
	makeCallRecord,
	piEditEvidence,
	RESULT_CHARS,
	resultText,
} from "./call-record.ts";
export type { CallKind, SessionEvent, ToolCallRecord } from "./tool-call.ts";
export { CallPairer, newStats, type ScanStats } from "./pairing.ts";
export {
	assistantContent,
	CLAUDE_TOOL_BLOCK,
	CONTEXT_OVERFLOW,
	PI_TOOL_BLOCK,
	piMessage,
	type ToolBlockShape,
} from "./pi-messages.ts";
export { BranchReader, eventsFromBranch } from "./branch.ts";
export { ABORTED_TEXT, isAbortedResult, MAX_NESTED_CALLS, type NestedCall, nestedCallsOf } from "./nested.ts";
