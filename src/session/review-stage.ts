// The last two settle stages: the LSP pre-pass and the model review, with the deterministic
// signals as input. The review stage asks the sink to deliver even with nothing found (its
// stalemate count, its question), then records the review once it knows what was delivered.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Question } from "../findings/index.ts";
import type { SettleRun, SettleStage } from "./monitor.ts";
import {
	closeReview,
	type LspAndReview,
	lspCheck,
	modelReview,
	type ReviewDeps,
	readAheadFor,
	reviewEntry,
} from "./review-steps.ts";

const NOT_GIT =
	"(Not a git repository: these are the paths of successful edit and write calls; bash changes are not seen.)";
const ACTIVITY =
	"(Nothing changed locally: this run orchestrated child agents, so review what it did with them; " +
	"see the orchestration activity.)";

export function lspStage(deps: ReviewDeps): SettleStage {
	return {
		name: "lsp",
		async settle(run) {
			const paths = run.changes?.paths ?? [];
			if (run.changes) run.readAhead = readAheadFor(deps, run.ctx, paths).readAhead;
			run.lsp = await lspCheck(deps, run.settings, paths);
		},
		collect: (run) => run.lsp?.findings ?? [],
	};
}

/** What the review stage needs of the clarification monitor (the orchestration activity tail). */
export interface ClarifyDeps {
	texts(): string[];
	mayAsk(): boolean;
	asked(): void;
	reviewed(): void;
	/** Whether clarification is on now (it may be turned off while the reviewer works). */
	clarifying(ctx: ExtensionContext): boolean;
	/** A finding is in stalemate: the reviewer may not ask. */
	stalemated(): boolean;
}

export function reviewStage(deps: ReviewDeps, clarify: ClarifyDeps): SettleStage {
	let reviewed: LspAndReview | undefined;
	return {
		name: "review",
		async settle(run) {
			const changes = run.changes;
			if (!changes) return;
			const notes = [changes.via === "tools" ? NOT_GIT : "", changes.trigger === "activity" ? ACTIVITY : ""];
			const note = notes.filter(Boolean).join("\n");
			const request = {
				trigger: changes.trigger,
				paths: changes.paths,
				since: run.since,
				note: note || undefined,
				signals: run.signals,
				...(run.clarify ? { clarification: { activity: clarify.texts(), ask: mayAsk(clarify) } } : {}),
				...(run.readAhead ? { readAhead: run.readAhead } : {}),
			};
			const result = await modelReview(deps, run.ctx, request, run.lsp?.signal);
			const cancelled = result.outcome.status === "cancelled";
			const lspFindings = run.lsp?.findings ?? [];
			const lspSkipped = run.lsp?.skipped;
			const findings = [...lspFindings, ...(cancelled ? [] : result.outcome.findings)];
			reviewed = { result, findings, cancelled, ...(lspSkipped ? { lspSkipped } : {}) };
			const question = cancelled ? undefined : askedQuestion(clarify, run, result.outcome.question);
			run.review = { failed: result.outcome.status === "failed", cancelled, question };
		},
		collect: () => (reviewed && !reviewed.cancelled ? reviewed.result.outcome.findings : []),
		delivered(run, delivered) {
			if (!reviewed || !run.changes) return;
			const record = closeReview(deps, run.ctx, reviewed, run.changes.trigger, delivered);
			// A completed review saw the activity tail: it no longer counts as new (a question consumes it too).
			if (run.clarify && record.status !== "failed" && record.status !== "cancelled") clarify.reviewed();
			return [reviewEntry(record)];
		},
	};
}

/** `watchdog_ask` is offered unless this prompt has had its question or a finding is in stalemate. */
function mayAsk(clarify: ClarifyDeps): boolean {
	return clarify.mayAsk() && !clarify.stalemated();
}

/**
 * A question the review came back with: it uses up the prompt's question and the review's
 * evidence. If clarification was turned off while the reviewer worked, it is a stale result:
 * recorded as suppressed, never delivered.
 */
function askedQuestion(clarify: ClarifyDeps, run: SettleRun, question: Question | undefined): Question | undefined {
	if (!question) return undefined;
	clarify.asked();
	if (clarify.clarifying(run.ctx)) return question;
	const reason = "clarification was turned off during the review";
	const { evidence } = question;
	const outcome = "suppressed";
	run.record({ kind: "question", source: run.role, question: question.question, evidence, outcome, reason });
	return undefined;
}
