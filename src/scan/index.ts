// `pi-watchdog scan`: the detectors over recorded sessions.
// Other folders import from here; files inside the folder import each other directly.
export { main } from "./cli.ts";
export { readSessionEvents } from "./read-session.ts";
