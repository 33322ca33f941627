// The session says it is waiting while a child waits on the permission arbiter: a status line
// (TUI and RPC), and in the TUI Pi's program status "blocked" (OSC 7501), which Pi reports for a
// custom component given `blocked`. The component is an overlay that never takes the keyboard
// and is hidden at once, so the user's editor is untouched; it closes when nothing waits.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { quietly } from "./progress.ts";

const STATUS_KEY = "watchdog-waiting";

/** A reporter for one session: each call with a text is one wait begun, each undefined one ended. */
export function waitingReporter(
	ctx: Pick<ExtensionContext, "mode" | "hasUI" | "ui">,
): (text: string | undefined) => void {
	let waits = 0;
	let close: (() => void) | undefined;
	return (text) => {
		waits = Math.max(0, waits + (text === undefined ? -1 : 1));
		quietly(() => {
			if (ctx.hasUI) ctx.ui.setStatus(STATUS_KEY, waits ? text : undefined);
		});
		if (ctx.mode !== "tui" || !ctx.hasUI) return;
		if (!waits) {
			close?.();
			close = undefined;
			return;
		}
		if (close || text === undefined) return;
		quietly(() => {
			void ctx.ui
				.custom<void>(
					(_tui, _theme, _keys, done) => {
						close = () => done(undefined);
						return { render: () => [], invalidate: () => {} };
					},
					{
						overlay: true,
						overlayOptions: { nonCapturing: true },
						onHandle: (handle) => handle.setHidden(true),
						blocked: { kind: "permission", message: text },
					},
				)
				.catch(() => {});
		});
	};
}
