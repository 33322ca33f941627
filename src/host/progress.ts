// Showing that a review is running: Pi's working indicator says "watchdog reviewing…" with the
// seconds so far, and the footer says `watchdog: reviewing`. Without it the screen stands
// still for seconds after the agent's last message. A stale context is ignored.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

type UiCtx = Pick<ExtensionContext, "ui">;

export function showReviewing(ctx: UiCtx): { stop(): void } {
	const started = Date.now();
	const tick = () =>
		quietly(() => ctx.ui.setWorkingMessage(`watchdog reviewing… ${Math.floor((Date.now() - started) / 1000)}s`));
	quietly(() => ctx.ui.setStatus("watchdog", "watchdog: reviewing"));
	tick();
	// Pi hides its working row when the model's last turn ends; the review comes after that.
	quietly(() => ctx.ui.setWorkingVisible(true));
	const timer = setInterval(tick, 1000);
	timer.unref();
	return {
		stop() {
			clearInterval(timer);
			quietly(() => ctx.ui.setWorkingMessage());
			// Take the row down again: left up, it would spin on after the run settles.
			// The next run's start puts Pi's own row back (restoreWorkingRow).
			quietly(() => ctx.ui.setWorkingVisible(false));
		},
	};
}

/** At a run's start: Pi's working row is allowed again (showReviewing took it down). */
export function restoreWorkingRow(ctx: UiCtx): void {
	quietly(() => ctx.ui.setWorkingVisible(true));
}

/** Runs a UI call that must never cost its caller anything (a stale context, a UI without the call). */
export function quietly(fn: () => void): void {
	try {
		fn();
	} catch {
		// the session moved on: nothing to show it on
	}
}
