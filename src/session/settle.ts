// The settle step of one run, in its fixed order: the change gate (did the run, or an earlier
// unreviewed one, change anything?), the LSP pre-pass, then the model review with the
// deterministic signals as input; every finding goes to the sink, which decides what Pi's
// boundary result carries. Also the repository-bound monitors a session starts with.
import type { BoundaryResult, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { showReviewing } from "../host/index.ts";
import { LspManager } from "../lsp/index.ts";
import { ChangeGate, REVIEW_ENTRY } from "../review/index.ts";
import type { Question } from "../findings/index.ts";
import type { WatchdogSettings } from "../settings/index.ts";
import type { SettleEvidence } from "../evidence/index.ts";
import { afterEvidence, evidenceAtSettle, evidenceOnly, writtenNudge } from "./evidence-step.ts";
import { closeReview, lspAndReview } from "./review-steps.ts";
import { rotateAtSettle } from "./rotate-step.ts";
import { settleMark } from "./settle-timing.ts";
import type { WatchdogSession } from "./watchdog-session.ts";

const GIT_STATUS_TIMEOUT_MS = 15_000;

export interface RunMonitors {
	gate?: ChangeGate;
	lsp?: LspManager;
	/** Leaf entry when the current run started; undefined between runs. */
	startLeaf?: { leaf: string | null };
}

/** The gate and the LSP manager for the session's repository (a warm server is kept when the root stays). */
export function startMonitors(previous: RunMonitors, cwd: string, configDirName: string): RunMonitors {
	const artifacts = `${configDirName}-subagents/`;
	const gate = new ChangeGate({
		cwd,
		ignore: (p) => p.startsWith(artifacts) || p.startsWith("tmp/") || p.startsWith(".git/") || /(^|\/)node_modules\//.test(p),
		// The first snapshot holds up the agent's first write: a repository too big for this gets a notice, not a wait.
		timeoutMs: GIT_STATUS_TIMEOUT_MS,
	});
	const root = gate.repo?.root ?? cwd;
	let lsp = previous.lsp;
	if (lsp?.root !== root) {
		void lsp?.shutdown();
		lsp = new LspManager(root);
	}
	return { gate, lsp };
}

export async function settleRun(
	session: WatchdogSession,
	run: RunMonitors,
	ctx: ExtensionContext,
	event: { entries: BoundaryResult["entries"]; continue: boolean; outcome: string },
): Promise<BoundaryResult | undefined> {
	const runStart = run.startLeaf;
	run.startLeaf = undefined;
	// Taken at every settle, so this run's activity never carries over to trigger a later one.
	const activityDue = session.activity.takeActivityDue();
	const gate = run.gate;
	const resolved = session.settings(ctx);
	if (!gate || !resolved.enabled || event.outcome === "aborted") {
		gate?.abandonRun();
		return undefined;
	}
	const settings = resolved.settings;
	settleMark("start");
	// A run that ended on a usage limit switches model first, so a reviewer that inherits the
	// session's model reviews on the healthy one; the resume note goes after the findings.
	const rotation = event.outcome === "error" ? await rotateAtSettle(session, ctx, settings) : undefined;
	const result = await checkRun(session, run, ctx, event, settings, runStart, activityDue);
	if (!rotation) return result;
	return {
		entries: [...(result?.entries ?? event.entries ?? []), ...rotation.entries],
		continue: (result?.continue ?? event.continue) || rotation.continueRun,
	};
}

/** The evidence monitors, the change gate, the LSP pre-pass and the review, in that order. */
async function checkRun(
	session: WatchdogSession,
	run: RunMonitors,
	ctx: ExtensionContext,
	event: { entries: BoundaryResult["entries"]; continue: boolean; outcome: string },
	settings: WatchdogSettings,
	runStart: RunMonitors["startLeaf"],
	activityDue: boolean,
): Promise<BoundaryResult | undefined> {
	const gate = run.gate;
	if (!gate) return undefined;
	// The deterministic evidence monitors first: their findings stand whatever the review does.
	// A model-written nudge (idle.model) is written while the gate and the review run.
	const found = evidenceAtSettle(session, ctx, settings, event.outcome);
	const evidence = writtenNudge(session, ctx, settings, found);
	settleMark("evidence");
	const verdict = await gate.finish();
	settleMark("gate");
	if (verdict.error) {
		session.review.problem(ctx, `could not tell whether the run changed the repository: ${verdict.error}`);
		session.recordHistory(ctx, { kind: "failure", what: "change gate", message: verdict.error });
		return evidenceOnly(session, ctx, event, await evidence, settings);
	}
	// Nothing changed, and nothing is left over from a review that did not complete: only a run
	// that orchestrated children (clarification on) is still reviewed, once per user prompt.
	const clarify = session.clarifying(ctx);
	const edited = verdict.changed || session.review.hasPending();
	if (!edited && !(clarify && activityDue)) return evidenceOnly(session, ctx, event, await evidence, settings);
	if (!edited) session.activity.activityReviewStarted();

	const progress = showReviewing(ctx);
	try {
		const trigger = edited ? "boundary" : "activity";
		return await reviewAndDeliver(session, run, ctx, event, { trigger, clarify, paths: verdict.paths, via: verdict.via, since: runStart?.leaf ?? null, settings }, found, evidence);
	} finally {
		progress.stop();
	}
}

async function reviewAndDeliver(
	session: WatchdogSession,
	run: RunMonitors,
	ctx: ExtensionContext,
	event: { entries: BoundaryResult["entries"]; continue: boolean },
	verdict: { trigger: "boundary" | "activity"; clarify: boolean; paths: string[]; via: string; since: string | null; settings: WatchdogSettings },
	found: SettleEvidence,
	pending: Promise<SettleEvidence>,
): Promise<BoundaryResult> {
	const notes = [
		verdict.via === "tools" ? "(Not a git repository: these are the paths of successful edit and write calls; bash changes are not seen.)" : "",
		verdict.trigger === "activity" ? "(Nothing changed locally: this run orchestrated child agents, so review what it did with them; see the orchestration activity.)" : "",
	].filter(Boolean);
	const reviewed = await lspAndReview(session, run, ctx, verdict.settings, {
		trigger: verdict.trigger,
		paths: verdict.paths,
		since: verdict.since,
		note: notes.length ? notes.join("\n") : undefined,
		signals: found.signals,
		...(verdict.clarify ? { clarification: clarificationFor(session) } : {}),
	});
	const { cancelled } = reviewed;
	const evidence = await pending;
	const findings = [...evidence.findings, ...reviewed.findings];
	const question = cancelled ? undefined : askedQuestion(session, ctx, reviewed.result.outcome.question);
	// A cancelled review's LSP findings still stand; they are delivered, but nothing continues:
	// new input is already waiting.
	const delivery = session.sink.atSettle(ctx, findings, verdict.settings, !cancelled && (reviewed.result.outcome.status !== "failed" || findings.length > 0), question);
	afterEvidence(session, ctx, evidence, delivery.sent);
	const record = closeReview(session, ctx, reviewed, verdict.trigger, delivery);
	// A completed review saw the activity tail: it no longer counts as new (a question consumes it too).
	if (verdict.clarify && record.status !== "failed" && record.status !== "cancelled") session.activity.reviewed();
	return {
		entries: [...(event.entries ?? []), ...delivery.entries, { type: "custom", customType: REVIEW_ENTRY, data: record }],
		continue: event.continue || (!cancelled && delivery.continueRun),
	};
}

/** The reviewer's clarification input: the activity tail, and `watchdog_ask` unless this prompt has had its question or a finding is in stalemate. */
function clarificationFor(session: WatchdogSession): { activity: string[]; ask: boolean } {
	return { activity: session.activity.texts(), ask: session.activity.mayAsk() && !session.sink.stalemated() };
}

/**
 * A question the review came back with: it uses up the prompt's question and the review's
 * evidence. If clarification was turned off while the reviewer worked, it is a stale result:
 * recorded as suppressed, never delivered.
 */
function askedQuestion(session: WatchdogSession, ctx: ExtensionContext, question: Question | undefined): Question | undefined {
	if (!question) return undefined;
	session.activity.asked();
	if (session.clarifying(ctx)) return question;
	session.recordHistory(ctx, { kind: "question", source: session.options.role, question: question.question, evidence: question.evidence, outcome: "suppressed", reason: "clarification was turned off during the review" });
	return undefined;
}
