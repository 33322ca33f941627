// Where a settle's time goes, published on a diagnostics channel for the settle-cost bench
// (node:diagnostics_channel): nothing is built or sent while nobody subscribes.
import { channel } from "node:diagnostics_channel";

export const SETTLE_TIMING_CHANNEL = "pi-watchdog:settle";

export type SettleStage = "start" | "evidence" | "gate" | "lsp";

const timing = channel(SETTLE_TIMING_CHANNEL);

/** Marks the end of a settle stage (performance.now() time). */
export function settleMark(stage: SettleStage): void {
	if (timing.hasSubscribers) timing.publish({ stage, at: performance.now() });
}
