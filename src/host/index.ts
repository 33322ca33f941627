// Talking to Pi: guarded handlers, notices to the user, and project trust as the watchdog needs it.
// Other folders import from here; files inside the folder import each other directly.
export { quietly, restoreWorkingRow, showReviewing } from "./progress.ts";
export { guarded } from "./guard.ts";
export { present, type Level } from "./present.ts";
export { waitingReporter } from "./waiting.ts";
export { askToLower, type Chooser, KEEP_CHOICE, LOWER_CHOICE } from "./ask.ts";
export { renderFindings, renderQuestion } from "./render.ts";
export { childSnapshot, piTrusts, ProjectTrust, repositoryTrust } from "./trust.ts";
export { fileState, type FileTrust, readState, takeSnapshot, type TrustedRead } from "./trust-files.ts";
export { type FileState, judgeFile, type TrustSnapshot } from "./trust-snapshot.ts";
export { appName, envName, hostEnv } from "./app-name.ts";
export { AGENT_FILE_MAX_BYTES, type AgentListError, listAgentFiles } from "./agent-files.ts";
