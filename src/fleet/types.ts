// What one fleet pass says about each session on the machine, and the knobs of a pass.

export type FleetState = "working" | "waiting" | "idle" | "done" | "dormant" | "unknown";

/** Where a session came from. */
export type FleetSource = "pi" | "child-run" | "claude-code";

/** What became of a nudge (or why none was sent). */
export interface Delivery {
	outcome: "delivered" | "undelivered" | "unreachable" | "skipped" | "flagged" | "failed";
	/** How it went or would have gone: mailbox, tmux pane, none. */
	via?: "mailbox" | "tmux";
	/** The pane it was typed into. */
	pane?: string;
	/** Why it was not delivered (policy, cooldown, cap, the decider's SKIP, …). */
	reason?: string;
	/** The message sent (or that would have been). */
	message?: string;
}

export interface FleetRow {
	/** The session's id (Pi's or Claude Code's), or the run id of a child run. */
	id: string;
	source: FleetSource;
	file?: string;
	cwd?: string;
	/** The session's name, else its first prompt, one line. */
	label?: string;
	agent: string;
	model?: string;
	state: FleetState;
	/** Why this state, one line. */
	reason: string;
	startedAt?: string;
	lastActivityAt?: string;
	/** The latest visible text, one short line (never the transcript itself). */
	preview?: string;
	/** A live Pi session running pi-watchdog: its process and mailbox. */
	live?: { pid: number; busy?: boolean; key: string; policy?: string };
	/** What the session was asked (for a nudge), short. */
	goal?: string;
	/** What the agent said it would do or concluded, short. */
	concluded?: string;
	/** The next step a nudge names. */
	nextStep?: string;
	/** How the unfinished stop looks (announced, self-question, claim, …). */
	kind?: string;
	/** Needs the user's eyes: idle, waiting, a contradicted claim. */
	attention: boolean;
	delivery?: Delivery;
}

export interface FleetPass {
	/** When the pass ran (ISO). */
	at: string;
	sessions: FleetRow[];
	/** Files passed over, each with why. */
	skipped: Array<{ path: string; reason: string }>;
}

export interface FleetTimes {
	/** Quiet this long after a stop before a session counts as idle. */
	stallMs: number;
	/** Quiet this long and a session is dormant (not judged). */
	dormantMs: number;
}
