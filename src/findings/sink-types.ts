// The shapes the findings sink takes and gives: its context, its dependencies on Pi and on a
// parent watchdog, its settings, what it returns at the settle boundary and what it records.
import type { ExtensionContext, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import type { Finding, Severity } from "./finding.ts";
import type { FindingEvent, HistoryBase, LoopResolvedEvent, QuestionEvent } from "./history-event.ts";

export type SinkCtx = Pick<ExtensionContext, "mode" | "ui" | "cwd"> &
	Partial<Pick<ExtensionContext, "sessionManager" | "isProjectTrusted">>;
export type Level = "info" | "warning" | "error";

/** What the history log gets from the sink: its events without what the session adds (time, session id, cwd). */
export type SinkEvent =
	| Omit<FindingEvent, keyof HistoryBase>
	| Omit<LoopResolvedEvent, keyof HistoryBase>
	| Omit<QuestionEvent, keyof HistoryBase>;

/** The parent's user, for what a child must tell or ask them (a child's own UI reaches nobody). */
export interface ParentUser {
	/** Pi's mode where the user is (named when nobody can be asked). */
	mode: string;
	notify(text: string, level: Level): void;
	/** A select dialog where a person can answer (the parent's TUI); absent elsewhere. */
	ask?(title: string, choices: string[]): Promise<string | undefined>;
	/** The child saved a settings change the user made or allowed (the parent's file watch takes it as accepted). */
	saved?(path: string, mutate: (watchdog: Record<string, unknown>) => void): void;
	/** A child waits on something only the watchdog or the user can settle (a text), or no longer (undefined). */
	waiting?(text: string | undefined): void;
}

/** Where a child's findings go besides its own session. */
export interface ParentChannel {
	deliver(findings: Finding[], from: string): void;
	/** The parent's user (foreground children); absent where the child cannot reach them (a detached runner). */
	user?: ParentUser;
	/** After each boundary review of the child: the blockers it left open, and whether it stalemated. */
	settled?(state: { blockers: Finding[]; stalemate: boolean }): void;
	/** A launch of the child's own ended: its children's results, for the tree's verification above. */
	ended?(runId: string, results: unknown[]): void;
}

export interface SinkDeps {
	/** Pi's appendEntry: kept in the session, never sent to the model. */
	persist(customType: string, data: unknown): void;
	/** Pi's sendMessage with deliverAs "steer": reaches the model after the current tool. */
	steer(message: { customType: string; content: string; display: boolean; details?: unknown }): void;
	/** Pi's sendMessage with triggerTurn: when the agent is idle, starts a run that answers it. */
	wake?(message: { customType: string; content: string; display: boolean; details?: unknown }): void;
	/** Pi's sendMessage with no options: added to the session (and the model's next context), starting nothing. */
	post?(message: { customType: string; content: string; display: boolean; details?: unknown }): void;
	present(ctx: SinkCtx, text: string, level: Level): void;
	record?(ctx: SinkCtx, event: SinkEvent): void;
	parent?: ParentChannel;
	/** Which watchdog this is: "main" or a child role. */
	role: string;
}

/** What a launch brings back to the parent's sink: a background run's notice, the children's findings. */
export interface ChildReport {
	notice?: { customType: string; content: string; details?: unknown };
	/** Each tagged with the child it rose from (`Finding.child`). */
	findings: Finding[];
	/** Kept in the findings message's details (the run). */
	details?: Record<string, unknown>;
}

export interface SinkSettings {
	severityThreshold: Severity;
	stalemateRepeats: number;
	/** Findings sent to the agent per user prompt (pi-subagents' `maxWarnings`); null or absent: no cap. */
	maxWarnings?: number | null;
	/**
	 * The session's evidence policy (`idle.policy`): `handsoff` shows the evidence monitors'
	 * findings (claims, unfinished stops, nudges) and never delivers them to the model.
	 */
	idle?: { policy: string };
}

export interface SettleDelivery {
	entries: SessionBoundaryDraft[];
	continueRun: boolean;
	/** What went to the model, and what to the user only (for the footer's outcome). */
	sent: Finding[];
	shown: Finding[];
	/** Longest streak of one finding over consecutive boundary reviews, and whether it stalemated. */
	stalemateCount: number;
	stalemate: boolean;
	/** What became of the reviewer's question, if it asked one. */
	question?: { delivered: boolean; reason?: string };
}
