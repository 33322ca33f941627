// `/subagents-watchdog fleet`: the fleet view from inside Pi, with the host's agent dir, this
// session's settings and Pi's model registry (so a provider an extension registered can decide).
// `--watch` belongs in a terminal: it would hold the session.
import { fleetOnce, parseFleetArgs } from "../fleet/index.ts";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Ctx, WatchdogSession as Watchdog } from "../session/index.ts";

export async function runFleet(
	watchdog: Watchdog,
	ctx: Ctx & Partial<Pick<ExtensionContext, "sessionManager">>,
	argv: string[],
): Promise<{ text: string; level: "info" | "error" }> {
	const args = parseFleetArgs(argv);
	if (typeof args === "string") return { text: `Watchdog fleet: ${args}`, level: "error" };
	if (args.watch || args.systemdUnit)
		return {
			text: "Watchdog fleet: --watch runs in a terminal: pi-watchdog fleet --watch (see docs/fleet.md)",
			level: "error",
		};
	const model = ctx.model;
	const sm = ctx.sessionManager;
	const file = sm?.getSessionFile();
	const once = await fleetOnce(args, {
		agentDir: watchdog.store.agentDir(),
		settings: watchdog.settings(ctx).settings,
		env: process.env,
		registry: async () => ctx.modelRegistry,
		...(model ? { sessionModel: { provider: model.provider, id: model.id } } : {}),
		// Its user is here, running the pass: this session is listed but never nudged.
		...(sm ? { self: { id: sm.getSessionId(), ...(file ? { file } : {}) } } : {}),
	});
	return { text: once.text, level: once.code ? "error" : "info" };
}
