// `/subagents-watchdog` and what it and the `subagent` tool can ask of a watchdog: parsing, running, controls, history.
// Other folders import from here; files inside the folder import each other directly.
export type { ChangeOutcome } from "./agent-change.ts";
export { check, configureForAgent, recommend } from "./controls.ts";
export { historyEnv, runHistory } from "./history-command.ts";
export { runCommand } from "./run-command.ts";
export { COMMAND_NAME, completeArguments } from "./watchdog-command.ts";
