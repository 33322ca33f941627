// Entry point Pi loads: wires Pi's events, command and tool to the watchdog. No logic here.
import { CONFIG_DIR_NAME, type ExtensionAPI, type ExtensionCommandContext, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import { COMMAND_NAME, completeArguments, parseCommand, USAGE } from "./commands/watchdog-command.ts";
import { present } from "./commands/present.ts";
import { subagentTool } from "./children/subagent-tool.ts";
import { guarded } from "./host/guard.ts";
import { Watchdog } from "./watchdog.ts";

export default function piWatchdog(pi: ExtensionAPI): void {
	const watchdog = new Watchdog({ agentDir: getAgentDir, configDirName: CONFIG_DIR_NAME }, { appendEntry: (type, data) => pi.appendEntry(type, data) });

	const refreshUi = (ctx: ExtensionContext) => {
		const notice = watchdog.settingsNotice(ctx);
		if (notice) present(ctx, notice, "warning");
		if (ctx.mode === "tui") ctx.ui.setStatus("watchdog", watchdog.statusLabel(ctx));
	};

	pi.on(
		"session_start",
		guarded("session start", (_event, ctx) => {
			watchdog.restoreSession(ctx.sessionManager.getBranch());
			watchdog.rememberModels(ctx);
			refreshUi(ctx);
		}),
	);

	pi.registerCommand(COMMAND_NAME, {
		description: "Watchdog: status | on | off | session on|off | model <ref>|recommended|inherit | thinking <level> | recommend-model | check",
		getArgumentCompletions: (prefix) => {
			try {
				return completeArguments(prefix, watchdog.knownModelRefs());
			} catch {
				return null;
			}
		},
		handler: guarded(`/${COMMAND_NAME}`, async (args: string, ctx: ExtensionCommandContext) => {
			const op = parseCommand(args);
			switch (op.kind) {
				case "status":
					present(ctx, watchdog.statusText(ctx));
					break;
				case "help":
					present(ctx, USAGE);
					break;
				case "error":
					present(ctx, `Watchdog: ${op.message}`, "error");
					break;
				case "recommend":
					present(ctx, await watchdog.recommend(ctx));
					break;
				case "check": {
					const result = await watchdog.check(ctx);
					present(ctx, result.lines.join("\n"), result.ok ? "info" : "warning");
					break;
				}
				case "configure":
					present(ctx, await watchdog.configure(ctx, op.request));
					refreshUi(ctx);
					break;
			}
		}),
	});

	pi.registerTool(subagentTool(watchdog));
}
