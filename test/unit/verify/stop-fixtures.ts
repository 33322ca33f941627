// Stopped children as the verification tests build them: the reviewer configuration, a child with
// what a finished worker reports, an ended launch, the record of a reviewed stop, and a child's
// session log (its prompt, then tool calls numbered in the order made; the count restarts after each log).
import { fromPiToolCall, type SessionEvent } from "../../../src/transcript/index.ts";
import {
	childHash,
	type LaunchView,
	type StoppedChild,
	stopFingerprint,
	stopState,
	type VerifyConfig,
} from "../../../src/verify/stop-state.ts";

export const CONFIG: VerifyConfig = {
	model: "faux/reviewer",
	thinking: "high",
	severityThreshold: "concern",
	policy: "keep",
};
export const child = (over: Partial<StoppedChild & Record<string, unknown>> = {}): StoppedChild =>
	({
		label: "worker",
		agent: "worker",
		task: "Fix greet",
		status: "done",
		answer: "Fixed greet. All tests pass.",
		cwd: "/repo",
		sessionFile: "/s/child.jsonl",
		blockers: { blockers: [], stalemate: false },
		...over,
	}) as StoppedChild;
export const ended = (runId: string, results: StoppedChild[], background = false): LaunchView => ({
	runId,
	background,
	results,
	state: "done",
});
export const reviewedOf = (launches: LaunchView[], config = CONFIG) => {
	const state = stopState(launches, config);
	return { fingerprint: stopFingerprint(state), childHashes: state.children.map((c) => childHash(c, config)) };
};

let n = 0;
export const call = (name: string, args: Record<string, unknown>, result: string, isError = false): SessionEvent => ({
	type: "call",
	call: fromPiToolCall(n++, name, args, [{ type: "text", text: result }], isError, undefined),
});
export const events = (...list: SessionEvent[]): SessionEvent[] => {
	n = 0;
	return [{ type: "prompt", text: "Fix greet" }, ...list];
};
