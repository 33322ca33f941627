// Rotation at the settle boundary of a main-session run that ended on an error: the monitor
// (src/rotate/) decides; here the registry checks the candidates, Pi's setModel switches, the
// findings sink grants the continuation (the one budget and policy every continuation obeys),
// and the user's notice, the session entry and the history line are written.
import type { ExtensionContext, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import { present } from "../host/index.ts";
import { checkReviewer, chooseReviewer } from "../models/index.ts";
import { type Candidate, lastAssistant, RESUME_MESSAGE, ROTATE_ENTRY, type RotationIo, type RotationRecord, skipsText } from "../rotate/index.ts";
import type { WatchdogSettings } from "../settings/index.ts";
import type { WatchdogSession } from "./watchdog-session.ts";

export interface RotationStep {
	entries: SessionBoundaryDraft[];
	continueRun: boolean;
}

/** What the settle adds for a rotation, if anything. Never throws. */
export async function rotateAtSettle(session: WatchdogSession, ctx: ExtensionContext, settings: WatchdogSettings): Promise<RotationStep | undefined> {
	if (session.options.role !== "main" || !settings.rotate.enabled) return undefined;
	try {
		const current = ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined;
		const result = await session.rotation.atSettle(registryIo(session, ctx), {
			settings: settings.rotate,
			policy: settings.idle.policy,
			current,
			last: lastAssistant(ctx.sessionManager.getBranch()),
			now: Date.now(),
			prompt: session.review.latestPrompt(),
			continuationBlocked: session.sink.continuationBlocked(settings),
		});
		if (result.kind === "none") return undefined;
		const entries: SessionBoundaryDraft[] = [{ type: "custom", customType: ROTATE_ENTRY, data: result.record }];
		session.recordHistory(ctx, historyOfRotation(result.record));
		if (result.notice) present(ctx, result.notice, "warning");
		if (result.kind !== "rotated") return { entries, continueRun: false };
		const sent = session.sink.continueWith({ customType: RESUME_MESSAGE, content: result.note, details: { rotation: result.record } }, settings);
		if ("blocked" in sent) {
			present(ctx, `Watchdog: switched to ${result.record.to}, but did not continue the run: ${sent.blocked}.`, "warning");
			return { entries, continueRun: false };
		}
		return { entries: [...entries, sent.entry], continueRun: true };
	} catch (error) {
		session.recordHistory(ctx, { kind: "failure", what: "rotate", message: error instanceof Error ? error.message : String(error) });
		return undefined;
	}
}

/** The registry's word on each candidate (the same check as the reviewer's), and Pi's switch. */
function registryIo(session: WatchdogSession, ctx: ExtensionContext): RotationIo {
	return {
		async check(candidate: Candidate) {
			const checked = await checkReviewer(ctx.modelRegistry, chooseReviewer({ model: candidate.ref, thinking: "off" }, {}));
			if (checked.ok) return { ok: true };
			const first = checked.lines[0] ?? "";
			return { ok: false, reason: first.startsWith("Unknown model") ? `unknown model (${first})` : `no credentials (${first})` };
		},
		async switchTo(candidate: Candidate) {
			const model = ctx.modelRegistry.find(candidate.provider, candidate.id);
			if (!model || !session.host.setModel) return { ok: false, reason: "Pi offers no way to switch the model here" };
			if (!(await session.host.setModel(model))) return { ok: false, reason: "no credentials (Pi refused the switch)" };
			if (candidate.thinking) session.host.setThinkingLevel?.(candidate.thinking);
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
