// The contract every capability of a session's watchdog fits (DESIGN.md, "The monitor
// contract"): a `Monitor` with the hooks it needs, and the settle's stages, each of which gets
// a narrow run context, never the session. The session keeps its monitors in a private list
// and loops over them; nothing here imports the session, so the folder has no import cycle.
import type { ExtensionContext, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import type { Finding, Question, SinkEvent } from "../findings/index.ts";
import type { ChangeReadAhead } from "../review/index.ts";
import type { ResolvedSettings, WatchdogSettings } from "../settings/index.ts";
import type { StatusSection } from "../status/index.ts";

/** A history event as a monitor or the sink makes it; the session adds session id and cwd. */
export type HistoryLine = SinkEvent | Record<string, unknown>;

/** What a history line needs from Pi's context: the session it belongs to. */
export type HistoryCtx = { cwd: string; sessionManager?: { getSessionId(): string }; isProjectTrusted?: () => boolean };

/** The parts of Pi's context the watchdog reads. */
export type Ctx = Pick<ExtensionContext, "cwd" | "isProjectTrusted" | "modelRegistry" | "model" | "thinkingLevel">;

/** What a tool call adds: whether and how the user can be asked. */
export type AgentCtx = Ctx & Pick<ExtensionContext, "mode" | "hasUI" | "ui">;

export type ToolCallVerdict = { block: true; reason: string } | undefined;
export type ToolCall = { toolName: string; input: unknown; toolCallId?: string };
export type ToolCallCheck = (ctx: ExtensionContext, call: ToolCall) => ToolCallVerdict | Promise<ToolCallVerdict>;
export type ToolEvent = { toolName: string; input: unknown; content: unknown; isError: boolean; details?: unknown };

/** A session entry as restore hooks read them. */
export type Entry = { type: string; customType?: string; data?: unknown; details?: unknown };

/** What a monitor found in a tool result; the session hands it to the sink (a monitor never delivers). */
export interface ToolFindings {
	findings: Finding[];
	/** Extra details on what is steered in (a loop's signal). */
	details?: Record<string, unknown>;
	/** Something earlier reported is over (a loop resolved): a session entry and a line for the user. */
	resolved?: { customType: string; text: string; data: Record<string, unknown> };
	/** The run must stop now: shown to the user, then Pi aborts. */
	stop?: string;
}

/** What a status hook is told. */
export interface StatusView {
	enabled: boolean;
	settings: WatchdogSettings;
	role: string;
	clarifying: boolean;
	/** The sections status shows before anything ran (a live section of the same title replaces one). */
	baseline: StatusSection[];
	resolved: ResolvedSettings;
}

/** A monitor's part of status: sections (`--all`) and lines of the short one. */
export interface MonitorStatus {
	sections?: StatusSection[];
	brief?: string[];
}

/** One capability of the session's watchdog: every hook optional, none may throw into Pi. */
export interface Monitor {
	readonly name: string;
	/** Session start (also after /reload, resume, fork, new): state back from the session's entries. */
	restore?(entries: readonly Entry[]): void;
	/** Session start, after restore: the session's own context (its id, file, cwd). */
	start?(ctx: ExtensionContext): void;
	/** A real user prompt (typed or sent over RPC). */
	userPrompt?(text: string): void;
	/** Any input at all, the user's or another extension's. */
	input?(): void;
	/** Before a tool runs; a verdict that blocks ends the round (the checks that may refuse answer first). */
	toolCall?(
		ctx: ExtensionContext,
		call: ToolCall,
		settings: ResolvedSettings,
	): ToolCallVerdict | Promise<ToolCallVerdict>;
	/** After a tool ran, with the watchdog on. */
	toolResult?(ctx: ExtensionContext, event: ToolEvent, settings: ResolvedSettings): ToolFindings | undefined;
	/** An assistant message's visible text. */
	assistantText?(text: string, settings: ResolvedSettings): void;
	/** A model change: work in flight for the old model stops. */
	modelChange?(): void;
	status?(view: StatusView): MonitorStatus;
	shutdown?(): void | Promise<void>;
}

/** One settle as its stages see it: what the run was, and what the stages before found. */
export interface SettleRun {
	readonly ctx: ExtensionContext;
	readonly settings: WatchdogSettings;
	readonly outcome: string;
	/** Whose watchdog: `main` or a child's role. */
	readonly role: string;
	/** The leaf entry when the run started (null: the whole branch). */
	readonly since: string | null;
	/** This run orchestrated children with clarification on and that activity is not reviewed yet. */
	readonly activityDue: boolean;
	readonly clarify: boolean;
	record(line: HistoryLine): void;
	/** Deterministic signals for the review, in the order the stages found them. */
	signals: string[];
	/** The change gate's verdict on this run. */
	gate?: { changed: boolean; paths: string[]; via: string };
	/** What the review covers, once the gate and the pending paths decided there is something. */
	changes?: { trigger: "boundary" | "activity"; paths: string[]; via: string };
	/** The reviewer's view of the change, read while the LSP pre-pass runs (see ModelReview.readAhead). */
	readAhead?: ChangeReadAhead;
	/** The LSP pre-pass: its signal is the first the reviewer reads; its findings stand whatever the review does. */
	lsp?: { signal?: string; findings: Finding[]; skipped?: string };
	/** Set by the review stage: the sink is called even with no findings, and may continue the run. */
	review?: { failed: boolean; cancelled: boolean; question?: Question };
	/** Entries after the delivery's (a rotation's record and resume note). */
	entries: SessionBoundaryDraft[];
	/** A stage continues the run whatever the delivery does (a rotation's resume). */
	continueRun: boolean;
	/** No later stage runs (the gate failed, or nothing is left to review). */
	done: boolean;
	/** Run when the settle ends, whatever happened (a progress indicator stops). */
	cleanup: Array<() => void>;
}

/** What the sink did with a settle's findings, as every stage learns it. */
export interface Delivered {
	sent: Finding[];
	shown: Finding[];
	stalemateCount: number;
	stalemate: boolean;
	question?: { delivered: boolean };
}

/** One stage of the settle pipeline: settle (in order, until one says done), collect, then delivered. */
export interface SettleStage {
	readonly name: string;
	settle?(run: SettleRun): void | Promise<void>;
	/** This stage's findings for the sink, awaited after every stage settled (a nudge model may still be writing). */
	collect?(run: SettleRun): Finding[] | Promise<Finding[]>;
	/** What the sink delivered (nothing sent when it was not called); entries to add after the delivery's. */
	// biome-ignore lint/suspicious/noConfusingVoidType: most stages add nothing and return nothing
	delivered?(run: SettleRun, delivered: Delivered): SessionBoundaryDraft[] | void;
}
