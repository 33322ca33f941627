// One tool call as the deterministic detectors see it, whatever recorded it: a live Pi
// session, a Pi session file, a pi-subagents transcript or a Claude Code log.

export type CallKind = "read" | "edit" | "write" | "bash" | "search" | "list" | "poll" | "other";

export interface ToolCallRecord {
	/** 0-based position among the session's tool calls. */
	index: number;
	/** The tool's name as recorded (e.g. "read", "Read", "BashOutput"). */
	name: string;
	kind: CallKind;
	/** The call's arguments as recorded. */
	args: Record<string, unknown>;
	/** read/edit/write: the file. */
	path?: string;
	/** bash: the command line. */
	command?: string;
	/** search: the pattern (grep regex or glob). */
	pattern?: string;
	/** read: first line (1-based) and number of lines asked for, when given. */
	offset?: number;
	limit?: number;
	/** The result as text (possibly cut by the recorder). */
	result: string;
	isError: boolean;
	/** edit/write: whether it changed a file (a diff, or a successful write). */
	changed?: boolean;
}

/** What a recorded session holds, in order. */
export type SessionEvent =
	| { type: "prompt"; text: string }
	| { type: "call"; call: ToolCallRecord }
	/**
	 * An assistant message's visible text. A message without tool calls (a stop) comes out even
	 * when its text is empty; `thinking` says it carried hidden reasoning, `error` that it ended
	 * on a provider or harness error rather than by the agent's choice.
	 */
	| { type: "assistant"; text: string; thinking?: boolean; error?: boolean }
	/** The context was compacted (a summary replaced the history), or a turn overflowed it. */
	| { type: "compaction"; overflow?: boolean };
