// `/subagents-watchdog allow [id]`: the user's word over the permission arbiter. A child's call
// that an `ask` rule sent to the arbiter and that was denied may run once, exactly as it was
// asked; a rule's `deny` is never in the book, and print mode has nobody whose word it is.
import type { Level } from "../host/index.ts";
import type { Ctx, WatchdogSession } from "../session/index.ts";

export function allowOnce(
	watchdog: WatchdogSession,
	ctx: Ctx & { mode?: string },
	id: string,
): { text: string; level: Level; changed: boolean } {
	// In doubt (no mode known), nobody is there.
	if (ctx.mode === undefined || ctx.mode === "print" || ctx.mode === "json")
		return {
			text:
				`Watchdog: not allowed: in ${ctx.mode ?? "this"} mode nobody is there to decide, ` +
				"so a denied call stays denied.",
			level: "error",
			changed: false,
		};
	const open = watchdog.allowances.pending();
	if (!id)
		return {
			text: open.length
				? `Denied calls you can allow once:\n${open.map((d) => `- ${d.id}: ${d.who}'s ${d.tool}`).join("\n")}`
				: "No denied call is waiting for you.",
			level: "info",
			changed: false,
		};
	const allowed = watchdog.allowances.allow(id);
	if (!allowed) {
		const list = open.length
			? ` Denials you can allow: ${open.map((d) => `${d.id} (${d.who}'s ${d.tool})`).join(", ")}.`
			: "";
		return {
			text:
				`Watchdog: there is no denied call ${id} to allow ` +
				`(a permission rule's deny can never be allowed this way).${list}`,
			level: "warning",
			changed: false,
		};
	}
	return {
		text:
			`Allowed once: ${allowed.who}'s ${allowed.tool} call, exactly as it was asked, runs the next time ` +
			"it makes it (recorded in history as allowed by you).",
		level: "info",
		changed: false,
	};
}
