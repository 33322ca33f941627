// Entry point Pi loads: wires Pi's events, command and tool to the watchdog. No logic here.
import { CONFIG_DIR_NAME, type ExtensionAPI, type ExtensionCommandContext, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import { runCommand } from "./commands/run-command.ts";
import { COMMAND_NAME, completeArguments } from "./commands/watchdog-command.ts";
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
			watchdog.rememberModels(ctx);
			const outcome = await runCommand(watchdog, args, ctx);
			present(ctx, outcome.text, outcome.level);
			if (outcome.changed) refreshUi(ctx);
		}),
	});

	pi.registerTool(subagentTool(watchdog, refreshUi));
}
