// The settle step of one run as a pipeline of stages (rotation, evidence, change gate, pending
// paths, LSP, review; see settle-stages in watchdog-session.ts): each stage gets the narrow
// run context, never the session. The stages run in order until one says there is nothing
// more to do; then their findings go to the sink once, and each stage learns what was
// delivered. What Pi's boundary result carries is decided here.
import type { BoundaryResult, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Finding, Question } from "../findings/index.ts";
import type { WatchdogSettings } from "../settings/index.ts";
import { settledOnce } from "../util/index.ts";
import type { Delivered, HistoryLine, SettleRun, SettleStage } from "./monitor.ts";

export type SettleEvent = { entries: BoundaryResult["entries"]; continue: boolean; outcome: string };

/** The sink's settle delivery, as the pipeline calls it. */
export interface SettleSink {
	atSettle(
		ctx: ExtensionContext,
		findings: Finding[],
		settings: WatchdogSettings,
		countsForStalemate: boolean,
		question?: Question,
	): Delivered & { entries: NonNullable<BoundaryResult["entries"]>; continueRun: boolean };
}

export interface SettleInput {
	ctx: ExtensionContext;
	event: SettleEvent;
	settings: WatchdogSettings;
	since: string | null;
	activityDue: boolean;
	clarify: boolean;
	role: string;
	record(line: HistoryLine): void;
}

const NOTHING_DELIVERED: Delivered = { sent: [], shown: [], stalemateCount: 0, stalemate: false };

export async function settleRun(
	stages: readonly SettleStage[],
	input: SettleInput,
	sink: SettleSink,
): Promise<BoundaryResult | undefined> {
	const { ctx, event, settings } = input;
	const run: SettleRun = {
		ctx,
		settings,
		outcome: event.outcome,
		role: input.role,
		since: input.since,
		activityDue: input.activityDue,
		clarify: input.clarify,
		record: input.record,
		signals: [],
		entries: [],
		continueRun: false,
		done: false,
		cleanup: [],
	};
	try {
		const ran: SettleStage[] = [];
		for (const stage of stages) {
			if (run.done) break;
			ran.push(stage);
			await stage.settle?.(run);
		}
		const findings: Finding[] = [];
		for (const stage of ran) findings.push(...((await stage.collect?.(run)) ?? []));
		// A review always goes through the sink (its stalemate count, its question); otherwise only findings do.
		// A review with a verdict counts towards the stalemate (a failed one with nothing to say does not).
		const review = run.review;
		const counts = !!review && !review.cancelled && (!review.failed || findings.length > 0);
		const delivers = review || findings.length;
		const delivery = delivers ? sink.atSettle(ctx, findings, settings, counts, review?.question) : undefined;
		const after = ran.flatMap((stage) => stage.delivered?.(run, delivery ?? NOTHING_DELIVERED) ?? []);
		if (!delivery && !after.length && !run.entries.length && !run.continueRun) return undefined;
		// A cancelled review's findings are delivered, but nothing continues: new input is already waiting.
		const continued = !run.review?.cancelled && (delivery?.continueRun ?? false);
		return {
			entries: [...(event.entries ?? []), ...(delivery?.entries ?? []), ...after, ...run.entries],
			continue: event.continue || continued || run.continueRun,
		};
	} finally {
		for (const done of run.cleanup) done();
		settledOnce();
	}
}
