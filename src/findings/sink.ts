// The findings sink: the one place every finding goes, whatever produced it (the review, the
// LSP pre-pass, the loop detector, cadence, and later claims, nudges and children). It owns
// what must be decided the same way for all of them: the severity threshold, what was shown
// recently, the continuation budget of the current user prompt (shared by every source), the
// stalemate count of consecutive boundary reviews, print-mode output, the session entries,
// the history line of each finding and, for a child, the copy that rises to its parent.
// The decisions themselves are pure (delivery.ts, stalemate.ts); this is the thin shell.
import type { ExtensionContext, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import { type DeliveryPlan, type Fate, FINDING_MESSAGE, NOTE_ENTRY, type NoteData, planDelivery } from "./delivery.ts";
import {
	EVIDENCE_SOURCES,
	type Finding,
	firstLine,
	printedFinding,
	sameFinding,
	type Severity,
	sourceLabel,
} from "./finding.ts";
import { type Question, QUESTION_MESSAGE, QUESTION_NOTE, questionMessage, questionText } from "./question.ts";
import { NO_STALEMATE, recordReview, type StalemateState } from "./stalemate.ts";

/** Why an evidence finding stayed with the user under policy handsoff. */
export const HANDSOFF = "policy handsoff: claims and unfinished stops are shown to you, never sent to the agent";
/** Why what children, their verification or a launch rule brought up stayed with the user under policy handsoff. */
export const HANDSOFF_CHILDREN =
	"policy handsoff: what child agents, their verification and launch rules bring up is shown to you, never sent to the agent";
const CHILD_SOURCES: ReadonlySet<string> = new Set(["verify", "rules"]);

/** Continuations the watchdog may start per user prompt, over all sources together. */
export const MAX_CONTINUATIONS = 5;
const RECENT = 20;
/** Findings the user marked as seen (`/subagents-watchdog dismiss`), kept in the session. */
export const DISMISS_ENTRY = "watchdog-dismissed";

export type SinkCtx = Pick<ExtensionContext, "mode" | "ui" | "cwd"> &
	Partial<Pick<ExtensionContext, "sessionManager" | "isProjectTrusted">>;
type Level = "info" | "warning" | "error";

/** What the history log gets for each finding (the session adds time, session id and cwd). */
export type SinkEvent =
	| {
			kind: "finding";
			source: string;
			importance: string;
			severity: string;
			category?: string;
			summary: string;
			evidence: string;
			fate: Fate;
	  }
	| { kind: "loop-resolved"; summary: string }
	| {
			kind: "question";
			source: string;
			question: string;
			evidence: string;
			outcome: "delivered" | "suppressed";
			reason?: string;
	  };

/** The parent's user, for what a child must tell or ask them (a child's own UI reaches nobody). */
export interface ParentUser {
	/** Pi's mode where the user is (named when nobody can be asked). */
	mode: string;
	notify(text: string, level: Level): void;
	/** A select dialog where a person can answer (the parent's TUI); absent elsewhere. */
	ask?(title: string, choices: string[]): Promise<string | undefined>;
	/** The child saved a settings change the user made or allowed (the parent's file watch takes it as accepted). */
	saved?(path: string, mutate: (watchdog: Record<string, unknown>) => void): void;
}

/** Where a child's findings go besides its own session. */
export interface ParentChannel {
	deliver(findings: Finding[], from: string): void;
	/** The parent's user (foreground children); absent where the child cannot reach them (a detached runner). */
	user?: ParentUser;
	/** After each boundary review of the child: the blockers it left open, and whether it stalemated. */
	settled?(state: { blockers: Finding[]; stalemate: boolean }): void;
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

export class FindingsSink {
	private readonly deps: SinkDeps;
	private recentlyShown: Finding[] = [];
	/** What was shown or sent lately, newest last, with what became of it (status, dismiss). */
	private recent: Array<{ finding: Finding; fate: Fate; prompt: number }> = [];
	/** Counts real user prompts, so status can show this prompt's findings. */
	private prompt = 0;
	private dismissed: Finding[] = [];
	private stalemateState: StalemateState = NO_STALEMATE;
	/** A finding stalemated since the last user prompt (the watchdog stopped pushing). */
	private inStalemate = false;
	private continuations = 0;
	/** Findings sent to the agent since the last user prompt (`maxWarnings`). */
	private sentThisPrompt = 0;

	constructor(deps: SinkDeps) {
		this.deps = deps;
	}

	/** After /reload, resume or a restart: what was shown before is not shown again. */
	restore(entries: ReadonlyArray<{ type: string; customType?: string; data?: unknown; details?: unknown }>): void {
		const recent: Array<{ finding: Finding; fate: Fate; prompt: number }> = [];
		for (const e of entries) {
			const note = e.data as NoteData | undefined;
			if (e.type === "custom" && e.customType === NOTE_ENTRY && isFinding(note?.finding)) {
				recent.push({
					finding: note.finding,
					fate: note.stalemate ? "stalemate" : note.heldBack ? "held back" : "shown to you",
					prompt: -1,
				});
			}
			if (e.type === "custom_message" && e.customType === FINDING_MESSAGE) {
				const found = (e.details as { findings?: unknown[] } | undefined)?.findings;
				if (Array.isArray(found))
					for (const finding of found.filter(isFinding))
						recent.push({ finding, fate: "sent to the agent", prompt: -1 });
			}
		}
		this.recentlyShown = recent.map((r) => r.finding).slice(-RECENT);
		this.recent = recent.slice(-RECENT);
		this.dismissed = [];
		for (const e of entries) {
			const found =
				e.type === "custom" && e.customType === DISMISS_ENTRY
					? (e.data as { findings?: unknown[] } | undefined)?.findings
					: undefined;
			if (Array.isArray(found)) this.dismissed.push(...found.filter(isFinding));
		}
		for (const r of this.recent) if (this.isDismissed(r.finding)) r.fate = "dismissed";
		this.stalemateState = NO_STALEMATE;
		this.inStalemate = false;
		this.continuations = 0;
		this.sentThisPrompt = 0;
	}

	/** A real user prompt: a fresh continuation budget and stalemate count. */
	userPrompt(): void {
		this.prompt++;
		this.sentThisPrompt = 0;
		this.stalemateState = NO_STALEMATE;
		this.inStalemate = false;
		this.continuations = 0;
	}

	/** Whether a finding stalemated since the last user prompt: no question is asked then. */
	stalemated(): boolean {
		return this.inStalemate;
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
	atSettle(
		ctx: SinkCtx,
		findings: Finding[],
		settings: SinkSettings,
		countsForStalemate: boolean,
		question?: Question,
	): SettleDelivery {
		// A dismissed finding no longer counts towards the stalemate.
		const stale = recordReview(
			this.stalemateState,
			findings.filter((f) => !this.isDismissed(f)),
			settings.stalemateRepeats,
		);
		if (countsForStalemate) this.stalemateState = stale.state;
		if (stale.stalemated.length) this.inStalemate = true;
		const plan = this.plan(findings, settings, stale.stalemated);
		const asked = question ? this.ask(ctx, plan, question, settings) : undefined;
		this.carryOut(ctx, plan);
		try {
			this.deps.parent?.settled?.({
				blockers: findings.filter((f) => f.severity === "blocker" && !this.isDismissed(f)),
				stalemate: stale.stalemated.length > 0,
			});
		} catch {
			// the parent's own trouble never stops the child's settle
		}
		if (stale.stalemated.length) {
			this.deps.present(
				ctx,
				`Watchdog stalemate: "${firstLine(stale.stalemated[0].summary, 120)}" was raised by ${stale.longest} reviews in a row. It is no longer sent to the agent; your next prompt resets this.`,
				"warning",
			);
		}
		return {
			entries: plan.entries,
			continueRun: plan.continueRun,
			sent: plan.toModel,
			shown: plan.toUser,
			stalemateCount: stale.longest,
			stalemate: stale.stalemated.length > 0,
			...(asked ? { question: asked } : {}),
		};
	}

	/**
	 * The reviewer's question joins the settle's plan: to the agent, which then continues (one
	 * continuation with the findings, from the same budget), unless a stalemate, the policy or
	 * the spent budget holds it back; then it is kept for the user. Either way it gets a history line.
	 */
	private ask(
		ctx: SinkCtx,
		plan: DeliveryPlan,
		q: Question,
		settings: SinkSettings,
	): { delivered: boolean; reason?: string } {
		const reason = this.inStalemate
			? "a finding is in stalemate"
			: settings.idle?.policy === "handsoff"
				? "policy handsoff: the watchdog never delivers to the agent"
				: this.budgetSpent();
		if (reason)
			plan.entries.push({
				type: "custom",
				customType: QUESTION_NOTE,
				data: { ...q, reason, text: questionText(q, `not sent to the agent: ${reason}`) },
			});
		else {
			plan.entries.push({
				type: "custom_message",
				customType: QUESTION_MESSAGE,
				content: questionMessage(q),
				display: true,
				details: { question: q },
			});
			plan.continueRun = true;
		}
		if (ctx.mode === "print" || ctx.mode === "json")
			this.deps.present(ctx, questionText(q, reason ? `not sent: ${reason}` : "sent to the agent"), "info");
		this.deps.record?.(ctx, {
			kind: "question",
			source: this.deps.role,
			question: q.question,
			evidence: q.evidence,
			outcome: reason ? "suppressed" : "delivered",
			...(reason ? { reason } : {}),
		});
		return reason ? { delivered: false, reason } : { delivered: true };
	}

	/**
	 * Findings during a run (loops, cadence): the model's share is steered in after the current
	 * tool. `idle`: the agent is not running (the review command): the model's share starts a run.
	 */
	duringRun(
		ctx: SinkCtx,
		findings: Finding[],
		settings: SinkSettings,
		details?: Record<string, unknown>,
		idle = false,
	): DeliveryPlan | undefined {
		if (!findings.length) return undefined;
		const plan = this.plan(findings, settings, []);
		this.carryOut(ctx, plan);
		const send = idle && this.deps.wake ? this.deps.wake : this.deps.steer;
		try {
			for (const entry of plan.entries) {
				if (entry.type === "custom_message")
					send({
						customType: entry.customType,
						content: entry.content as string,
						display: entry.display,
						details: { ...(entry.details as object), ...details },
					});
				else if (entry.type === "custom") this.deps.persist(entry.customType, entry.data);
			}
		} catch {
			// the session went away meanwhile (reload, new session): nothing to deliver to
		}
		return plan;
	}

	/**
	 * What a launch brought back (a foreground launch's end, a background run's completion): the
	 * notice, which is the run's own answer and never starts a turn by itself (added when the
	 * agent is idle, steered in while it runs), then its children's findings as any finding
	 * during a run: threshold, dedupe, policy and the prompt's budget decide whether they reach
	 * the model, and only they may start a turn.
	 */
	fromChildren(ctx: SinkCtx, report: ChildReport, settings: SinkSettings, idle: boolean): DeliveryPlan | undefined {
		if (report.notice) {
			const notice = { ...report.notice, display: true };
			try {
				if (idle) (this.deps.post ?? this.deps.steer)(notice);
				else this.deps.steer(notice);
			} catch {
				// the session went away meanwhile: the run's files still hold its result
			}
		}
		return this.duringRun(ctx, report.findings, settings, report.details, idle);
	}

	/** The Findings part of status: the recent ones, numbered for `dismiss`, with what became of each. */
	section(): { title: string; lines: string[] } {
		const list = this.recentFindings();
		if (!list.length) return { title: "Findings", lines: ["none this session"] };
		const lines = list
			.slice(0, 8)
			.map(
				(r) =>
					`${r.n}. ${r.finding.severity} (${r.fate}) [${sourceLabel(r.finding)}] ${firstLine(r.finding.summary, 100)}`,
			);
		if (list.length > 8) lines.push(`… ${list.length - 8} older`);
		return { title: "Findings", lines: [...lines, "dismiss one with /subagents-watchdog dismiss N, or all of them"] };
	}

	/** Recent findings, newest first, numbered from 1 as `dismiss N` takes them. */
	recentFindings(): Array<{ n: number; finding: Finding; fate: Fate; prompt: number }> {
		return [...this.recent].reverse().map((r, i) => ({ n: i + 1, ...r }));
	}

	/**
	 * This prompt's findings, newest first, the same finding raised again folded into one with a
	 * count; and how many recent ones came before this prompt.
	 */
	promptFindings(): { findings: Array<{ n: number; finding: Finding; fate: Fate; times: number }>; earlier: number } {
		const all = this.recentFindings();
		const mine = all.filter((r) => r.prompt === this.prompt);
		const folded: Array<{ n: number; finding: Finding; fate: Fate; times: number }> = [];
		for (const r of mine) {
			const same = folded.find((f) => sameFinding(f.finding, r.finding));
			if (same) same.times++;
			else folded.push({ n: r.n, finding: r.finding, fate: r.fate, times: 1 });
		}
		return { findings: folded, earlier: all.length - mine.length };
	}

	/**
	 * Marks findings as seen: number N of recentFindings(), or all of them. They are not raised
	 * again and no longer count towards the stalemate. Returns what was dismissed.
	 */
	dismiss(ctx: SinkCtx, which: number | "all"): Finding[] {
		const list = this.recentFindings().filter((r) => r.fate !== "dismissed");
		const chosen = which === "all" ? list : list.filter((r) => r.n === which);
		const findings = chosen.map((r) => r.finding);
		if (!findings.length) return [];
		this.dismissed.push(...findings);
		for (const r of this.recent) if (findings.includes(r.finding)) r.fate = "dismissed";
		this.stalemateState = {
			streaks: this.stalemateState.streaks.filter((s) => !findings.some((f) => sameFinding(f, s.finding))),
		};
		this.deps.persist(DISMISS_ENTRY, { findings, at: Date.now() });
		for (const f of findings) this.deps.record?.(ctx, findingEvent(f, "dismissed"));
		return findings;
	}

	private isDismissed(f: Finding): boolean {
		return this.dismissed.some((d) => sameFinding(d, f));
	}

	/** Something the watchdog raised is over (a loop resolved by a landing). */
	resolved(ctx: SinkCtx, customType: string, text: string, data: Record<string, unknown>): void {
		this.note(ctx, text);
		try {
			this.deps.persist(customType, { text, ...data });
		} catch {
			// the session went away meanwhile
		}
		this.deps.record?.(ctx, { kind: "loop-resolved", summary: text });
	}

	/** Why no continuation may start now (policy handsoff, or this prompt's budget is spent), if so. */
	continuationBlocked(settings: Pick<SinkSettings, "idle">): string | undefined {
		if (settings.idle?.policy === "handsoff")
			return "policy handsoff: the watchdog detects and shows, and never delivers to the agent";
		return this.budgetSpent();
	}

	/**
	 * A continuation that carries no finding (the resume note after a model rotation): the same
	 * policy and budget as findings. Returns the boundary entry to add (the run then continues),
	 * or why there is none.
	 */
	continueWith(
		message: { customType: string; content: string; details?: unknown },
		settings: Pick<SinkSettings, "idle">,
	): { entry: SessionBoundaryDraft } | { blocked: string } {
		const blocked = this.continuationBlocked(settings);
		if (blocked) return { blocked };
		this.continuations++;
		return {
			entry: {
				type: "custom_message",
				customType: message.customType,
				content: message.content,
				display: true,
				details: message.details,
			},
		};
	}

	/** A note for the user only (what a verification checked): shown, never sent to the model. */
	note(ctx: SinkCtx, text: string): void {
		try {
			this.deps.present(ctx, text, "info");
		} catch {
			// a stale context: the note is in the session's entries all the same
		}
	}

	/** Why this prompt's continuation budget allows no more, if it is spent. */
	private budgetSpent(): string | undefined {
		return this.continuations >= MAX_CONTINUATIONS
			? `the watchdog already continued this prompt ${MAX_CONTINUATIONS} times`
			: undefined;
	}

	private plan(findings: Finding[], settings: SinkSettings, stalemated: Finding[]): DeliveryPlan {
		return planDelivery({
			findings,
			threshold: settings.severityThreshold,
			stalemated,
			continuationBlocked: this.budgetSpent(),
			...(settings.idle?.policy === "handsoff" ? { holdBack: handsoff } : {}),
			recentlyShown: this.recentlyShown,
			dismissed: this.dismissed,
			...(typeof settings.maxWarnings === "number"
				? {
						sendCap: {
							left: Math.max(0, settings.maxWarnings - this.sentThisPrompt),
							why: `maxWarnings ${settings.maxWarnings}: the findings sent to the agent this prompt reached the cap`,
						},
					}
				: {}),
		});
	}

	/** Everything a plan means besides its entries: budget, memory, print output, history, parent. */
	private carryOut(ctx: SinkCtx, plan: DeliveryPlan): void {
		if (plan.continueRun) this.continuations++;
		this.sentThisPrompt += plan.toModel.length;
		const shown = [...plan.toModel, ...plan.toUser];
		this.recentlyShown = [...this.recentlyShown, ...shown].slice(-RECENT);
		for (const d of plan.decisions)
			if (shown.includes(d.finding)) this.recent.push({ finding: d.finding, fate: d.fate, prompt: this.prompt });
		this.recent = this.recent.slice(-RECENT);
		// Print mode: stdout is the agent's answer, so every finding shown or sent goes to stderr, saying where it went.
		if (ctx.mode === "print" || ctx.mode === "json") {
			for (const { finding, fate } of plan.decisions)
				if (fate !== "below threshold" && fate !== "duplicate")
					this.deps.present(ctx, printedFinding(finding, fate), "info");
		}
		for (const { finding: f, fate } of plan.decisions) {
			this.deps.record?.(ctx, findingEvent(f, fate));
		}
		try {
			if (shown.length) this.deps.parent?.deliver(shown, this.deps.role);
		} catch {
			// the parent's own trouble never stops the child's delivery
		}
	}
}

/** What policy handsoff keeps from the model: the evidence monitors', children's, verification's, rules' findings. */
function handsoff(f: Finding): string | undefined {
	if (EVIDENCE_SOURCES.has(f.source)) return HANDSOFF;
	return f.child || CHILD_SOURCES.has(f.source) ? HANDSOFF_CHILDREN : undefined;
}

function findingEvent(f: Finding, fate: Fate): SinkEvent {
	return {
		kind: "finding",
		source: f.source,
		importance: f.importance,
		severity: f.severity,
		...(f.category ? { category: f.category } : {}),
		summary: f.summary,
		evidence: f.evidence,
		fate,
	};
}

function isFinding(value: unknown): value is Finding {
	return (
		typeof value === "object" &&
		value !== null &&
		typeof (value as Finding).summary === "string" &&
		typeof (value as Finding).evidence === "string"
	);
}
