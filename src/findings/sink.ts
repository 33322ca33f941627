// The findings sink: the one place every finding goes, whatever produced it (the review, the
// LSP pre-pass, the loop detector, cadence, and later claims, nudges and children). It owns
// what must be decided the same way for all of them: the severity threshold, what was shown
// recently, the continuation budget of the current user prompt (shared by every source), the
// stalemate count of consecutive boundary reviews, print-mode output, the session entries,
// the history line of each finding and, for a child, the copy that rises to its parent.
// The decisions themselves are pure (delivery.ts, stalemate.ts); this is the thin shell.
import type { SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import { type DeliveryPlan, type Fate, planDelivery } from "./delivery.ts";
import { EVIDENCE_SOURCES, type Finding, firstLine, printedFinding, sameFinding } from "./finding.ts";
import { type Question, QUESTION_MESSAGE, QUESTION_NOTE, questionMessage, questionText } from "./question.ts";
import { DISMISS_ENTRY, type RecentFinding, RecentFindings } from "./recent-findings.ts";
import type { ChildReport, SettleDelivery, SinkCtx, SinkDeps, SinkEvent, SinkSettings } from "./sink-types.ts";
import { NO_STALEMATE, recordReview, type StalemateState } from "./stalemate.ts";

export { DISMISS_ENTRY } from "./recent-findings.ts";
export type * from "./sink-types.ts";

/** Why an evidence finding stayed with the user under policy handsoff. */
export const HANDSOFF = "policy handsoff: claims and unfinished stops are shown to you, never sent to the agent";
/** Why what children, their verification or a launch rule brought up stayed with the user under policy handsoff. */
export const HANDSOFF_CHILDREN =
	"policy handsoff: what child agents, their verification and launch rules bring " +
	"up is shown to you, never sent to the agent";
const CHILD_SOURCES: ReadonlySet<string> = new Set(["verify", "rules"]);

/** Continuations the watchdog may start per user prompt, over all sources together. */
export const MAX_CONTINUATIONS = 5;

export class FindingsSink {
	private readonly deps: SinkDeps;
	/** What was shown or sent lately, with what became of it (status, dismiss, dedupe). */
	private readonly memory = new RecentFindings();
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
		this.memory.restore(entries);
		this.stalemateState = NO_STALEMATE;
		this.inStalemate = false;
		this.continuations = 0;
		this.sentThisPrompt = 0;
	}

	/** A real user prompt: a fresh continuation budget and stalemate count. */
	userPrompt(): void {
		this.memory.userPrompt();
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
			findings.filter((f) => !this.memory.isDismissed(f)),
			settings.stalemateRepeats,
		);
		if (countsForStalemate) this.stalemateState = stale.state;
		if (stale.stalemated.length) this.inStalemate = true;
		const plan = this.plan(findings, settings, stale.stalemated);
		const asked = question ? this.ask(ctx, plan, question, settings) : undefined;
		this.carryOut(ctx, plan);
		try {
			this.deps.parent?.settled?.({
				blockers: findings.filter((f) => f.severity === "blocker" && !this.memory.isDismissed(f)),
				stalemate: stale.stalemated.length > 0,
			});
		} catch {
			// the parent's own trouble never stops the child's settle
		}
		if (stale.stalemated.length) {
			this.deps.present(
				ctx,
				`Watchdog stalemate: "${firstLine(stale.stalemated[0].summary, 120)}" was raised ` +
					`by ${stale.longest} reviews in a row. It is no longer sent to the agent; your ` +
					`next prompt resets this.`,
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
		return this.memory.section();
	}

	/** Recent findings, newest first, numbered from 1 as `dismiss N` takes them. */
	recentFindings(): Array<{ n: number } & RecentFinding> {
		return this.memory.list();
	}

	/** This prompt's findings, newest first, repeats folded into one with a count; how many came before. */
	promptFindings(): ReturnType<RecentFindings["promptFindings"]> {
		return this.memory.promptFindings();
	}

	/**
	 * Marks findings as seen: number N of recentFindings(), or all of them. They are not raised
	 * again and no longer count towards the stalemate. Returns what was dismissed.
	 */
	dismiss(ctx: SinkCtx, which: number | "all"): Finding[] {
		const findings = this.memory.dismiss(which);
		if (!findings.length) return [];
		this.stalemateState = {
			streaks: this.stalemateState.streaks.filter((s) => !findings.some((f) => sameFinding(f, s.finding))),
		};
		this.deps.persist(DISMISS_ENTRY, { findings, at: Date.now() });
		for (const f of findings) this.deps.record?.(ctx, findingEvent(f, "dismissed"));
		return findings;
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
			recentlyShown: this.memory.shown,
			dismissed: this.memory.dismissed,
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
		this.memory.remember(plan);
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
		...(f.child ? { child: f.child } : {}),
	};
}
