// `pi-watchdog scan`: the detectors over recorded sessions (Pi's, pi-subagents' and Claude Code's
// files, read into the events of src/transcript/).
// Other folders import from here; files inside the folder import each other directly.
export { main } from "./cli.ts";
export { readSessionEvents } from "./read-session.ts";
