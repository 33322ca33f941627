// Talking to Pi: guarded handlers, notices to the user, and project trust as the watchdog needs it.
// Other folders import from here; files inside the folder import each other directly.
export { quietly, restoreWorkingRow, showReviewing } from "./progress.ts";
export { guarded } from "./guard.ts";
export { present, type Level } from "./present.ts";
export { askToLower, type Chooser, KEEP_CHOICE, LOWER_CHOICE } from "./ask.ts";
export { renderFindings, renderQuestion } from "./render.ts";
export { piTrusts, repositoryTrust } from "./trust.ts";
export { appName, envName } from "./app-name.ts";
