// The findings sink: the one place every finding goes, whatever produced it (the review, the
// LSP pre-pass, the loop detector, cadence, and later claims, nudges and children). It owns
// what must be decided the same way for all of them: the severity threshold, what was shown
// recently, the continuation budget of the current user prompt (shared by every source), the
// stalemate count of consecutive boundary reviews, print-mode output, the session entries,
// the history line of each finding and, for a child, the copy that rises to its parent.
// The decisions themselves are pure (delivery.ts, stalemate.ts); this is the thin shell.
import type { ExtensionContext, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import { type DeliveryPlan, type Fate, FINDING_MESSAGE, NOTE_ENTRY, type NoteData, planDelivery } from "./delivery.ts";
import { type Finding, firstLine, printedFinding, type Severity } from "./finding.ts";
import { NO_STALEMATE, recordReview, type StalemateState } from "./stalemate.ts";

/** Continuations the watchdog may start per user prompt, over all sources together. */
export const MAX_CONTINUATIONS = 5;
const RECENT = 20;

export type SinkCtx = Pick<ExtensionContext, "mode" | "ui" | "cwd"> & Partial<Pick<ExtensionContext, "sessionManager" | "isProjectTrusted">>;
type Level = "info" | "warning" | "error";

/** What the history log gets for each finding (the session adds time, session id and cwd). */
export type SinkEvent =
	| { kind: "finding"; source: string; importance: string; severity: string; category?: string; summary: string; evidence: string; fate: Fate }
	| { kind: "loop-resolved"; summary: string };

/** Where a child's findings go besides its own session. */
export interface ParentChannel {
	deliver(findings: Finding[], from: string): void;
}

export interface SinkDeps {
	/** Pi's appendEntry: kept in the session, never sent to the model. */
	persist(customType: string, data: unknown): void;
	/** Pi's sendMessage with deliverAs "steer": reaches the model after the current tool. */
	steer(message: { customType: string; content: string; display: boolean; details?: unknown }): void;
	present(ctx: SinkCtx, text: string, level: Level): void;
	record?(ctx: SinkCtx, event: SinkEvent): void;
	parent?: ParentChannel;
	/** Which watchdog this is: "main" or a child role. */
	role: string;
}

export interface SinkSettings {
	severityThreshold: Severity;
	stalemateRepeats: number;
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
}

export class FindingsSink {
	private readonly deps: SinkDeps;
	private recentlyShown: Finding[] = [];
	private stalemateState: StalemateState = NO_STALEMATE;
	private continuations = 0;

	constructor(deps: SinkDeps) {
		this.deps = deps;
	}

	/** After /reload, resume or a restart: what was shown before is not shown again. */
	restore(entries: ReadonlyArray<{ type: string; customType?: string; data?: unknown; details?: unknown }>): void {
		const shown: Finding[] = [];
		for (const e of entries) {
			if (e.type === "custom" && e.customType === NOTE_ENTRY && isFinding((e.data as NoteData | undefined)?.finding)) shown.push((e.data as NoteData).finding);
			if (e.type === "custom_message" && e.customType === FINDING_MESSAGE) {
				const found = (e.details as { findings?: unknown[] } | undefined)?.findings;
				if (Array.isArray(found)) shown.push(...found.filter(isFinding));
			}
		}
		this.recentlyShown = shown.slice(-RECENT);
		this.stalemateState = NO_STALEMATE;
		this.continuations = 0;
	}

	/** A real user prompt: a fresh continuation budget and stalemate count. */
	userPrompt(): void {
		this.stalemateState = NO_STALEMATE;
		this.continuations = 0;
	}

	/** Continuations left for this prompt (status). */
	continuationsLeft(): number {
		return Math.max(0, MAX_CONTINUATIONS - this.continuations);
	}

	/**
	 * Findings at the settle boundary: returned as Pi boundary entries, and `continueRun` when
	 * the model gets some. `countsForStalemate`: a boundary review that produced a verdict (a
	 * failed review with nothing to say neither extends nor ends a streak).
	 */
	atSettle(ctx: SinkCtx, findings: Finding[], settings: SinkSettings, countsForStalemate: boolean): SettleDelivery {
		const stale = recordReview(this.stalemateState, findings, settings.stalemateRepeats);
		if (countsForStalemate) this.stalemateState = stale.state;
		const plan = this.plan(findings, settings, stale.stalemated);
		this.carryOut(ctx, plan);
		if (stale.stalemated.length) {
			this.deps.present(ctx, `Watchdog stalemate: "${firstLine(stale.stalemated[0].summary, 120)}" was raised by ${stale.longest} reviews in a row. It is no longer sent to the agent; your next prompt resets this.`, "warning");
		}
		return { entries: plan.entries, continueRun: plan.continueRun, sent: plan.toModel, shown: plan.toUser, stalemateCount: stale.longest, stalemate: stale.stalemated.length > 0 };
	}

	/** Findings during a run (loops, cadence): the model's share is steered in after the current tool. */
	duringRun(ctx: SinkCtx, findings: Finding[], settings: SinkSettings, details?: Record<string, unknown>): void {
		if (!findings.length) return;
		const plan = this.plan(findings, settings, []);
		this.carryOut(ctx, plan);
		try {
			for (const entry of plan.entries) {
				if (entry.type === "custom_message") this.deps.steer({ customType: entry.customType, content: entry.content as string, display: entry.display, details: { ...(entry.details as object), ...details } });
				else if (entry.type === "custom") this.deps.persist(entry.customType, entry.data);
			}
		} catch {
			// the session went away meanwhile (reload, new session): nothing to deliver to
		}
	}

	/** Something the watchdog raised is over (a loop resolved by a landing). */
	resolved(ctx: SinkCtx, customType: string, text: string, data: Record<string, unknown>): void {
		this.deps.present(ctx, text, "info");
		try {
			this.deps.persist(customType, { text, ...data });
		} catch {
			// the session went away meanwhile
		}
		this.deps.record?.(ctx, { kind: "loop-resolved", summary: text });
	}

	private plan(findings: Finding[], settings: SinkSettings, stalemated: Finding[]): DeliveryPlan {
		const spent = this.continuations >= MAX_CONTINUATIONS;
		return planDelivery({
			findings,
			threshold: settings.severityThreshold,
			stalemated,
			continuationBlocked: spent ? `the watchdog already continued this prompt ${MAX_CONTINUATIONS} times` : undefined,
			recentlyShown: this.recentlyShown,
		});
	}

	/** Everything a plan means besides its entries: budget, memory, print output, history, parent. */
	private carryOut(ctx: SinkCtx, plan: DeliveryPlan): void {
		if (plan.continueRun) this.continuations++;
		const shown = [...plan.toModel, ...plan.toUser];
		this.recentlyShown = [...this.recentlyShown, ...shown].slice(-RECENT);
		// Print mode: stdout is the agent's answer, so every finding shown or sent goes to stderr, saying where it went.
		if (ctx.mode === "print" || ctx.mode === "json") {
			for (const { finding, fate } of plan.decisions) if (fate !== "below threshold" && fate !== "duplicate") this.deps.present(ctx, printedFinding(finding, fate), "info");
		}
		for (const { finding: f, fate } of plan.decisions) {
			this.deps.record?.(ctx, { kind: "finding", source: f.source, importance: f.importance, severity: f.severity, ...(f.category ? { category: f.category } : {}), summary: f.summary, evidence: f.evidence, fate });
		}
		if (shown.length) this.deps.parent?.deliver(shown, this.deps.role);
	}
}

function isFinding(value: unknown): value is Finding {
	return typeof value === "object" && value !== null && typeof (value as Finding).summary === "string" && typeof (value as Finding).evidence === "string";
}
