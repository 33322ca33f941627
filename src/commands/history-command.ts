// `/subagents-watchdog history` and the `watchdog.history` tool action: check what was asked,
// read the log, format it. The only I/O is `readHistory`.
import { type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import { historyDir } from "../findings/index.ts";
import { readHistory } from "../findings/index.ts";
import { type HistoryRequest, parseHistoryArgs, toQuery } from "./history-args.ts";
import { formatHistory } from "./history-format.ts";

export interface HistoryEnv {
	/** Pi's agent folder; the log is `<agentDir>/watchdog/history.jsonl`. */
	agentDir: string;
	/** This Pi session's id, for `--session current`. */
	sessionId: string;
	/** This session's working directory: the default filter. */
	cwd: string;
}

/** `args`: the words after `history` as typed, or the tool's fields. Never throws. */
export async function runHistory(
	args: string | HistoryRequest,
	env: HistoryEnv,
	now = new Date(),
): Promise<{ text: string; level: "info" | "warning" | "error" }> {
	let request: HistoryRequest;
	if (typeof args === "string") {
		const parsed = parseHistoryArgs(args.trim().split(/\s+/).filter(Boolean));
		if (!parsed.ok) return { text: `Watchdog: ${parsed.error}`, level: "error" };
		request = parsed.request;
	} else request = args;
	const checked = toQuery(request, { sessionId: env.sessionId, cwd: env.cwd }, now);
	if (!checked.ok) return { text: `Watchdog: ${checked.error}`, level: "error" };
	const { query } = checked;
	try {
		const read = await readHistory(historyDir(env.agentDir), query.filter);
		const text = formatHistory({
			...read,
			json: query.json,
			described: query.described,
			limit: query.filter.limit ?? 0,
		});
		return { text, level: read.skipped || read.refused.length ? "warning" : "info" };
	} catch (error) {
		return { text: `Watchdog: the history log could not be read: ${(error as Error).message}`, level: "error" };
	}
}

/** Where the log is and who is asking, from Pi's context: its agent folder, this session's id and cwd. */
export function historyEnv(
	ctx: Pick<ExtensionContext, "cwd"> & Partial<Pick<ExtensionContext, "sessionManager">>,
): HistoryEnv {
	let sessionId = "";
	try {
		sessionId = ctx.sessionManager?.getSessionId() ?? "";
	} catch {
		// A stale context after /reload: `--session current` then says there is no id.
	}
	return { agentDir: getAgentDir(), sessionId, cwd: ctx.cwd };
}
