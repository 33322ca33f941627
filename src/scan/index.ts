// `pi-watchdog scan`: the detectors over recorded sessions (Pi's, pi-subagents' and Claude Code's
// files, read into the events of src/transcript/).
// Other folders import from here; files inside the folder import each other directly.
export { main } from "./cli.ts";
export {
	detectFormat,
	parseSessionLines,
	readSessionEvents,
	type SessionFormat,
	sessionParser,
} from "./read-session.ts";
export { findSessionFiles } from "./find-files.ts";
export { agentDir, piSessionPlace } from "./pi-sessions.ts";
