// The evidence monitors at the settle boundary (the claims checker and the unfinished-stop
// detector, deterministic, before the model review), and what follows the sink's delivery: a
// nudge that went out counts towards the cooldown and the cap and gets a history line; a main
// session's nudge in the TUI waits for idle.stallMs without input; the cap's notice is shown.
// With idle.model set to a model, that model writes the nudge's text (see writtenNudge).
import type { BoundaryResult, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { SettleEvidence } from "../evidence/index.ts";
import type { Finding } from "../findings/index.ts";
import { present } from "../host/index.ts";
import { chooseReviewer } from "../models/index.ts";
import { writeNudge } from "../review/index.ts";
import type { WatchdogSettings } from "../settings/index.ts";
import type { WatchdogSession } from "./watchdog-session.ts";

const NOTHING: SettleEvidence = { findings: [], signals: [], claims: [] };

/** The checks over the session's branch; a failure here never costs the settle its review. */
export function evidenceAtSettle(session: WatchdogSession, ctx: ExtensionContext, settings: WatchdogSettings, outcome: string): SettleEvidence {
	try {
		return session.evidence.atSettle(ctx.sessionManager.getBranch(), settings.idle, { role: session.options.role, mode: ctx.mode, outcome, now: Date.now() });
	} catch (error) {
		session.recordHistory(ctx, { kind: "failure", what: "evidence", message: error instanceof Error ? error.message : String(error) });
		return NOTHING;
	}
}

/**
 * The nudge due at this settle, its text written by the idle.model model (one call under the
 * review deadline). Any failure keeps the template's text and is recorded; never throws.
 */
export async function writtenNudge(session: WatchdogSession, ctx: ExtensionContext, settings: WatchdogSettings, evidence: SettleEvidence): Promise<SettleEvidence> {
	const due = evidence.nudge ?? evidence.stall?.finding;
	const model = settings.idle.model;
	if (!due || !evidence.stop || !evidence.context || model === "inherit") return evidence;
	try {
		const written = await writeNudge({
			registry: ctx.modelRegistry,
			choice: chooseReviewer({ model, thinking: "off" }, session.sessionModel(ctx)),
			goal: evidence.context.goal,
			concluded: evidence.context.concluded,
			stop: evidence.stop,
			timeoutMs: settings.agentEndTimeoutMs,
		});
		if (!written.ok) {
			session.recordHistory(ctx, { kind: "failure", what: "nudge model", message: `${model}: ${written.message}; the nudge uses the template` });
			return evidence;
		}
		const finding: Finding = { ...due, recommendedAction: written.text };
		return {
			...evidence,
			findings: evidence.findings.map((f) => (f === due ? finding : f)),
			...(evidence.nudge ? { nudge: finding } : {}),
			...(evidence.stall ? { stall: { ...evidence.stall, finding } } : {}),
		};
	} catch (error) {
		session.recordHistory(ctx, { kind: "failure", what: "nudge model", message: error instanceof Error ? error.message : String(error) });
		return evidence;
	}
}

/** After the sink delivered the settle's findings: count the nudge, show the cap's notice, start a stall wait. */
export function afterEvidence(session: WatchdogSession, ctx: ExtensionContext, evidence: SettleEvidence, sent: Finding[]): void {
	if (evidence.nudge && sent.includes(evidence.nudge)) nudged(session, ctx, evidence.nudge);
	if (evidence.notice) present(ctx, evidence.notice, "warning");
	const stall = evidence.stall;
	if (!stall) return;
	session.evidence.scheduleStall(stall.ms, () => {
		try {
			const plan = session.sink.duringRun(ctx, [stall.finding], session.settings(ctx).settings, undefined, true);
			if (plan?.toModel.includes(stall.finding)) nudged(session, ctx, stall.finding);
		} catch {
			// the session went away while it waited (reload, new session): nothing to nudge
		}
	});
}

function nudged(session: WatchdogSession, ctx: ExtensionContext, finding: Finding): void {
	session.evidence.nudged(Date.now());
	session.recordHistory(ctx, { kind: "nudge", summary: finding.summary, source: "idle", outcome: "sent to the agent" });
}

/** A settle with nothing to review: only the evidence findings, if any, go through the sink. */
export function evidenceOnly(session: WatchdogSession, ctx: ExtensionContext, event: { entries: BoundaryResult["entries"]; continue: boolean }, evidence: SettleEvidence, settings: WatchdogSettings): BoundaryResult | undefined {
	if (!evidence.findings.length) {
		afterEvidence(session, ctx, evidence, []);
		return undefined;
	}
	const delivery = session.sink.atSettle(ctx, evidence.findings, settings, false);
	afterEvidence(session, ctx, evidence, delivery.sent);
	return { entries: [...(event.entries ?? []), ...delivery.entries], continue: event.continue || delivery.continueRun };
}

