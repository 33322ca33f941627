// The evidence monitors as a settle stage (the claims checker and the unfinished-stop
// detector, deterministic, before the model review), and what follows the sink's delivery: a
// nudge that went out counts towards the cooldown and the cap and gets a history line; a main
// session's nudge in the TUI waits for idle.stallMs without input; the cap's notice is shown.
// With idle.model set to a model, that model writes the nudge's text (see writtenNudge).
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { EvidenceWatch, SettleEvidence } from "../evidence/index.ts";
import type { Finding } from "../findings/index.ts";
import { present } from "../host/index.ts";
import { chooseReviewer, type SessionModelInfo } from "../models/index.ts";
import { writeNudge } from "../review/index.ts";
import type { WatchdogSettings } from "../settings/index.ts";
import type { Ctx, SettleRun, SettleStage } from "./monitor.ts";
import { settleMark } from "./settle-timing.ts";

const NOTHING: SettleEvidence = { findings: [], signals: [], claims: [] };

export interface EvidenceDeps {
	role: string;
	evidence: EvidenceWatch;
	sessionModel(ctx: Ctx): SessionModelInfo;
	/** A stalled nudge, delivered later while the agent is idle; true when it went to the model. */
	nudgeLater(ctx: ExtensionContext, finding: Finding): boolean;
}

/** The deterministic checks first: their findings stand whatever the review does. */
export function evidenceStage(deps: EvidenceDeps): SettleStage {
	let found = NOTHING;
	let written: Promise<SettleEvidence> = Promise.resolve(NOTHING);
	let evidence = NOTHING;
	return {
		name: "evidence",
		settle(run) {
			found = evidenceAtSettle(deps, run);
			run.signals.push(...found.signals);
			// A model-written nudge (idle.model) is written while the gate and the review run.
			written = writtenNudge(deps, run, found);
			settleMark("evidence");
		},
		async collect() {
			evidence = await written;
			return evidence.findings;
		},
		delivered(run, delivered) {
			afterEvidence(deps, run, evidence, delivered.sent);
		},
	};
}

/** The checks over the session's branch; a failure here never costs the settle its review. */
function evidenceAtSettle(deps: EvidenceDeps, run: SettleRun): SettleEvidence {
	const { ctx } = run;
	try {
		const options = { role: deps.role, mode: ctx.mode, outcome: run.outcome, now: Date.now() };
		return deps.evidence.atSettle(ctx.sessionManager.getBranch(), run.settings.idle, options);
	} catch (error) {
		run.record({ kind: "failure", what: "evidence", message: error instanceof Error ? error.message : String(error) });
		return NOTHING;
	}
}

/**
 * The nudge due at this settle, its text written by the idle.model model (one call under the
 * review deadline). Any failure keeps the template's text and is recorded; never throws.
 */
async function writtenNudge(deps: EvidenceDeps, run: SettleRun, evidence: SettleEvidence): Promise<SettleEvidence> {
	const { ctx } = run;
	const settings: WatchdogSettings = run.settings;
	const due = evidence.nudge ?? evidence.stall?.finding;
	const model = settings.idle.model;
	if (!due || !evidence.stop || !evidence.context || model === "inherit") return evidence;
	try {
		const written = await writeNudge({
			registry: ctx.modelRegistry,
			choice: chooseReviewer({ model, thinking: "off" }, deps.sessionModel(ctx)),
			goal: evidence.context.goal,
			concluded: evidence.context.concluded,
			stop: evidence.stop,
			timeoutMs: settings.agentEndTimeoutMs,
		});
		if (!written.ok) {
			const message = `${model}: ${written.message}; the nudge uses the template`;
			run.record({ kind: "failure", what: "nudge model", message });
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
		const message = error instanceof Error ? error.message : String(error);
		run.record({ kind: "failure", what: "nudge model", message });
		return evidence;
	}
}

/** After the sink delivered the settle's findings: count the nudge, show the cap's notice, start a stall wait. */
function afterEvidence(deps: EvidenceDeps, run: SettleRun, evidence: SettleEvidence, sent: Finding[]): void {
	const { ctx } = run;
	if (evidence.nudge && sent.includes(evidence.nudge)) nudged(deps, run, evidence.nudge);
	if (evidence.notice) present(ctx, evidence.notice, "warning");
	const stall = evidence.stall;
	if (!stall) return;
	deps.evidence.scheduleStall(stall.ms, () => {
		try {
			if (deps.nudgeLater(ctx, stall.finding)) nudged(deps, run, stall.finding);
		} catch {
			// the session went away while it waited (reload, new session): nothing to nudge
		}
	});
}

function nudged(deps: EvidenceDeps, run: SettleRun, finding: Finding): void {
	deps.evidence.nudged(Date.now());
	run.record({ kind: "nudge", summary: finding.summary, source: "idle", outcome: "sent to the agent" });
}
