// The same command failing again and again while nothing changed, however its error is worded
// each time (a timestamp, a port, a temp path, a different stack): grouped by the command and
// the fact that it failed, not by the exact text. Pure, bounded state.
import type { ToolCallRecord } from "../transcript/index.ts";
import { retryText } from "./loop-text.ts";
import type { LoopSignal } from "./signal.ts";

const MAX_COMMANDS = 200;
const MAX_WORDINGS = 16;

/** Whether a call's answer says it failed: an error result, or a non-zero exit code in its text. */
export function failed(call: ToolCallRecord): boolean {
	if (call.isError) return true;
	if (call.kind !== "bash") return false;
	const exit = /(?:Command exited with code|^Exit code|exited with (?:exit )?code)\s*:?\s*(\d+)/im.exec(
		call.result.length > 400 ? `${call.result.slice(0, 120)}\n${call.result.slice(-280)}` : call.result,
	);
	return exit !== null && exit[1] !== "0";
}

export interface FailedRun {
	count: number;
	first: number;
	/** How many different answers the failures gave. */
	wordings: number;
}

export class FailedRuns {
	private runs = new Map<string, { count: number; first: number; wordings: Set<string> }>();

	clear(): void {
		this.runs.clear();
	}

	/** A failing run of `call` (its signature hash) with answer `outcome`; a success ends its count. */
	add(call: string, outcome: string, ok: boolean, index: number): FailedRun | undefined {
		if (ok) {
			this.runs.delete(call);
			return undefined;
		}
		let run = this.runs.get(call);
		if (!run) {
			run = { count: 0, first: index, wordings: new Set() };
			this.runs.set(call, run);
			if (this.runs.size > MAX_COMMANDS) this.runs.delete(this.runs.keys().next().value as string);
		}
		run.count++;
		if (run.wordings.size < MAX_WORDINGS) run.wordings.add(outcome);
		return { count: run.count, first: run.first, wordings: run.wordings.size };
	}
}

export function retrySignal(
	run: FailedRun,
	callHash: string,
	label: string,
	to: number,
	threshold: number,
): LoopSignal {
	return {
		kind: "retry",
		key: `retry:${callHash}`,
		subject: `call:${callHash}`,
		from: run.first,
		to,
		count: run.count,
		...retryText({ label, count: run.count, first: run.first, to, wordings: run.wordings, threshold }),
		wayOut:
			"This command keeps failing and nothing changed between the tries. Read the error once, change what it points " +
			"at (or the command), or tell the user what blocks you.",
	};
}
