// The transcript as the detectors see it, whatever recorded it: `SessionEvent` (prompts,
// assistant text, tool calls), the `ToolCallRecord` of one call, and building records from
// recorded calls (a live Pi session, a session file, another tool's log).
// Other folders import from here; files inside the folder import each other directly.
export { argsObject, callKind, fromPiToolCall, makeCallRecord, piEditEvidence, RESULT_CHARS, resultText } from "./call-record.ts";
export { type CallKind, type SessionEvent, type ToolCallRecord } from "./tool-call.ts";
