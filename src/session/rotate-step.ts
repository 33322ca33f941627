// Rotation at the settle boundary of a main-session run that ended on an error: the monitor
// (src/rotate/) decides; here the registry checks the candidates, Pi's setModel switches, the
// findings sink grants the continuation (the one budget and policy every continuation obeys),
// and the user's notice, the session entry and the history line are written.
import type { ExtensionContext, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import type { FindingsSink } from "../findings/index.ts";
import { present } from "../host/index.ts";
import { checkReviewer, chooseReviewer, type Thinking } from "../models/index.ts";
import { type Candidate, lastAssistant, RESUME_MESSAGE, ROTATE_ENTRY, type Rotation } from "../rotate/index.ts";
import { type RotationIo, type RotationRecord, skipsText } from "../rotate/index.ts";
import type { SettleRun, SettleStage } from "./monitor.ts";

export interface RotationDeps {
	role: string;
	rotation: Rotation;
	latestPrompt(): string | undefined;
	sink: Pick<FindingsSink, "continuationBlocked" | "continueWith">;
	setModel?(model: NonNullable<ExtensionContext["model"]>): Promise<boolean>;
	setThinkingLevel?(level: Thinking): void;
}

/**
 * A run that ended on a usage limit switches model first, so a reviewer that inherits the
 * session's model reviews on the healthy one; the resume note goes after the findings.
 */
export function rotationStage(deps: RotationDeps): SettleStage {
	return {
		name: "rotation",
		async settle(run) {
			if (run.outcome !== "error") return;
			const step = await rotateAtSettle(deps, run);
			if (!step) return;
			run.entries.push(...step.entries);
			run.continueRun ||= step.continueRun;
		},
	};
}

/** What the settle adds for a rotation, if anything. Never throws. */
async function rotateAtSettle(
	deps: RotationDeps,
	run: SettleRun,
): Promise<{ entries: SessionBoundaryDraft[]; continueRun: boolean } | undefined> {
	const { ctx, settings } = run;
	if (deps.role !== "main" || !settings.rotate.enabled) return undefined;
	try {
		const current = ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined;
		const result = await deps.rotation.atSettle(registryIo(deps, ctx), {
			settings: settings.rotate,
			policy: settings.idle.policy,
			current,
			last: lastAssistant(ctx.sessionManager.getBranch()),
			now: Date.now(),
			prompt: deps.latestPrompt(),
			continuationBlocked: deps.sink.continuationBlocked(settings),
		});
		if (result.kind === "none") return undefined;
		const entries: SessionBoundaryDraft[] = [{ type: "custom", customType: ROTATE_ENTRY, data: result.record }];
		run.record(historyOfRotation(result.record));
		if (result.notice) present(ctx, result.notice, "warning");
		if (result.kind !== "rotated") return { entries, continueRun: false };
		const resume = { customType: RESUME_MESSAGE, content: result.note, details: { rotation: result.record } };
		const sent = deps.sink.continueWith(resume, settings);
		if ("blocked" in sent) {
			const text = `Watchdog: switched to ${result.record.to}, but did not continue the run: ${sent.blocked}.`;
			present(ctx, text, "warning");
			return { entries, continueRun: false };
		}
		return { entries: [...entries, sent.entry], continueRun: true };
	} catch (error) {
		run.record({ kind: "failure", what: "rotate", message: error instanceof Error ? error.message : String(error) });
		return undefined;
	}
}

/** The registry's word on each candidate (the same check as the reviewer's), and Pi's switch. */
function registryIo(deps: RotationDeps, ctx: ExtensionContext): RotationIo {
	return {
		async check(candidate: Candidate) {
			const choice = chooseReviewer({ model: candidate.ref, thinking: "off" }, {});
			const checked = await checkReviewer(ctx.modelRegistry, choice);
			if (checked.ok) return { ok: true };
			const first = checked.lines[0] ?? "";
			const reason = first.startsWith("Unknown model") ? `unknown model (${first})` : `no credentials (${first})`;
			return { ok: false, reason };
		},
		async switchTo(candidate: Candidate) {
			const model = ctx.modelRegistry.find(candidate.provider, candidate.id);
			if (!model || !deps.setModel) return { ok: false, reason: "Pi offers no way to switch the model here" };
			if (!(await deps.setModel(model))) return { ok: false, reason: "no credentials (Pi refused the switch)" };
			if (candidate.thinking) deps.setThinkingLevel?.(candidate.thinking);
			return { ok: true };
		},
	};
}

function historyOfRotation(r: RotationRecord) {
	return {
		kind: "rotate" as const,
		outcome: r.outcome,
		from: r.from,
		...(r.to ? { to: r.to } : {}),
		error: r.error,
		reason: r.reason,
		...(r.skipped.length ? { skipped: skipsText(r.skipped) } : {}),
	};
}
