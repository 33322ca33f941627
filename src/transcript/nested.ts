// Pi 1.6's nested tool calls and aborted calls, as the one reader sees them. A tool such as
// `codemode` runs other tools through `ctx.executeTool`; those calls are not in the transcript,
// only a bounded record of them (`nestedCalls`) on the calling tool's result: name, arguments,
// status, and the error text of a failed one (its output is not kept). A call Esc cancelled
// before it started, or still running when its script ended, did nothing: it is no failure,
// no loop and no evidence of anything. Pure.
import { argsObject, resultText } from "./call-record.ts";

/** Nested calls read from one result; a script that calls more is read up to here. */
export const MAX_NESTED_CALLS = 500;
/** Pi's result for a call cancelled (Esc) before or while it ran. */
export const ABORTED_TEXT = "Operation aborted";

export interface NestedCall {
	name: string;
	args: Record<string, unknown>;
	/** The error text of a failed call; a call that succeeded left no output in the record. */
	result: string;
	isError: boolean;
}

/** Whether a tool result is Pi's "Operation aborted" for a cancelled call. */
export function isAbortedResult(content: unknown, isError: boolean): boolean {
	return isError && resultText(content).trim() === ABORTED_TEXT;
}

/** The calls a tool result's `nestedCalls` record holds, in the order they were made (cancelled ones left out). */
export function nestedCallsOf(message: Record<string, unknown>): NestedCall[] {
	const record = message.nestedCalls;
	const calls = record && typeof record === "object" ? (record as { calls?: unknown }).calls : undefined;
	if (!Array.isArray(calls)) return [];
	const out: NestedCall[] = [];
	for (const c of calls.slice(0, MAX_NESTED_CALLS)) {
		if (!c || typeof c !== "object") continue;
		const { name, arguments: args, status, error } = c as Record<string, unknown>;
		if (typeof name !== "string" || status === "unfinished") continue;
		const text = typeof error === "string" ? resultText(error) : "";
		if (status === "error" && text.trim() === ABORTED_TEXT) continue;
		out.push({ name, args: argsObject(args), result: text, isError: status === "error" });
	}
	return out;
}
