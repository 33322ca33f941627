// Showing that a review is running: Pi's working indicator says "watchdog reviewing…" with the
// seconds so far, and the footer says `watchdog: reviewing`. Without it the screen stands
// still for seconds after the agent's last message. A stale context is ignored.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

type UiCtx = Pick<ExtensionContext, "ui">;

export function showReviewing(ctx: UiCtx): { stop(): void } {
	const started = Date.now();
	const tick = () => quietly(() => ctx.ui.setWorkingMessage(`watchdog reviewing… ${Math.floor((Date.now() - started) / 1000)}s`));
	quietly(() => ctx.ui.setStatus("watchdog", "watchdog: reviewing"));
	tick();
	const timer = setInterval(tick, 1000);
	timer.unref();
	return {
		stop() {
			clearInterval(timer);
			quietly(() => ctx.ui.setWorkingMessage());
		},
	};
}

function quietly(fn: () => void): void {
	try {
		fn();
	} catch {
		// the session moved on: nothing to show it on
	}
}
