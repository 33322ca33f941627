// Showing command output where the user can read it: the TUI's chat (notify), RPC clients
// (notify arrives as an extension_ui_request), and stderr in print/json mode, where notify
// is silent and stdout belongs to the agent's answer or the JSON event stream.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

export type Level = "info" | "warning" | "error";

export function present(ctx: Pick<ExtensionContext, "mode" | "ui">, text: string, level: Level = "info"): void {
	try {
		if (ctx.mode === "print" || ctx.mode === "json") {
			process.stderr.write(`${text}\n`);
			return;
		}
		ctx.ui.notify(text, level);
	} catch {
		// A stale context after /reload: there is no one left to tell.
	}
}
