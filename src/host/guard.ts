// Nothing the watchdog does may throw into Pi: every handler runs through `guarded`, which
// reports a failure to the user and returns nothing (Pi then carries on as without us).
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { present } from "./present.ts";

export function guarded<E, C extends Pick<ExtensionContext, "mode" | "ui">, R>(
	what: string,
	fn: (event: E, ctx: C) => R | Promise<R>,
): (event: E, ctx: C) => Promise<R | undefined> {
	return async (event, ctx) => {
		try {
			return await fn(event, ctx);
		} catch (error) {
			present(ctx, `Watchdog: ${what} failed: ${error instanceof Error ? error.message : String(error)}`, "error");
			return undefined;
		}
	};
}
