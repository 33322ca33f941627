// What Pi shows the model of the `subagent` tool: its name, description, prompt line and parameters.
// Apart from the tool's code (subagent-tool.ts) so that the extension can register the tool at every
// start without loading the children's code, which loads when the tool first runs.
import { subagentParameters } from "./tool-params.ts";

/** The tool's description as the model reads it; docs/subagent-tool.md shows it too. */
export const SUBAGENT_DESCRIPTION = [
	"Launch child agents, and inspect and configure the watchdog that reviews this session's work with a second model.",
	"- {agent, task}: one child; {tasks: [{agent, task}, ...]}: side by side; {chain: " +
		"[{agent, task}, ...]}: one after another, {previous} in a task is the previous " +
		"answer. Optional: model, thinking, cwd, timeoutMs, async (background: returns " +
		"a run id; a message arrives when it ends).",
	"  Agents: scout (read-only reconnaissance), worker (edits and verifies), reviewer " +
		"(read-only review), plus the user's own. Each child has its own session and " +
		"watchdog; the result gives each child's answer, status, counts and its watchdog's " +
		"high-importance findings; accepted: false means a check failed.",
	"  A child whose tools include subagent may launch its own children (foreground only), " +
		"as deep as children.maxDepth allows (default 2: the main session's children may, theirs may not).",
	'- {action: "status", id?}, {action: "wait", id, timeoutMs?}, {action: "steer", ' +
		'id, message}, {action: "interrupt", id}, {action: "stop", id}: background runs. ' +
		"interrupt ends the children's current step (they go on with a steer sent before " +
		"it, else with their task); stop ends the run.",
	'- {action: "watchdog.status"}: settings and their sources, the reviewer model in effect, errors.',
	'- {action: "watchdog.recommend-model"}: the suggested reviewer model.',
	'- {action: "watchdog.configure", model?, thinking?, enabled?, scope?, target?}: ' +
		"change the reviewer model, thinking level or switch.",
	'- {action: "watchdog.check"}: whether the reviewer model resolves and has credentials (no model call).',
	'- {action: "watchdog.history", session?, since?, source?, limit?, json?}: past ' +
		"reviews, findings (and what became of each), failures; newest first.",
	'- {action: "watchdog.review"}: review the pending changes (those an earlier review did not complete) now.',
	'Use scope "session" (the default) unless the user asked for a lasting default; ' +
		'"user" and "project" write settings files that affect other sessions.',
	"Every change is shown to the user. A change that lowers oversight (turning a " +
		"watchdog off, a reviewer of the session model's own family or the session model " +
		"itself, less thinking) needs the user: they are asked in the TUI, and elsewhere " +
		"it is refused with the command they can run. Do not retry a refused or declined change.",
].join("\n");

export const SUBAGENT_TOOL = {
	name: "subagent",
	label: "Subagent",
	description: SUBAGENT_DESCRIPTION,
	promptSnippet:
		"subagent: launch child agents ({agent, task}, {tasks}, {chain}; async for background); " +
		"watchdog.status, watchdog.configure (scope session unless asked otherwise), " +
		"watchdog.history",
	parameters: subagentParameters,
};
