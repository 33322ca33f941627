// What loads when a session's watchdog is first needed (src/startup/): the watchdog itself, the
// command's code and the subagent tool's. Kept apart from src/extension.ts, which Pi loads at every
// start, so that a start with the watchdog off loads only the registrations (the bundle's first file).
export { cleanStaleRuns, launcherDeps, subagentTool } from "./children/index.ts";
export { runCommand } from "./commands/index.ts";
export { WatchdogSession } from "./session/index.ts";
