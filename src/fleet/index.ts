// The fleet view: every agent session on this machine (Pi's, child runs, Claude Code's) in one
// pass, each with a state read from its transcript's tail, attention first; live Pi sessions
// reached through their mailbox, others through their tmux pane; nudges decided in one model
// call per pass and booked in a ledger. Pure cores (classify, view, decide) and thin shells.
// Other folders import from here; files inside the folder import each other directly.
export { classifyTail, type Classified, type TailInput } from "./classify.ts";
export { type LiveEntry, type LiveWait, liveRegistration, type LiveRegistration, listLive } from "./live.ts";
export { answerMail, sendMail, takeMail } from "./mailbox.ts";
export { runPass, type PassOptions } from "./pass.ts";
export { passText } from "./view.ts";
export { FLEET_USAGE, fleetOnce, parseFleetArgs } from "./command.ts";
export type { FleetPass, FleetRow, FleetState, FleetTimes } from "./types.ts";
