// Entry point Pi loads: wires Pi's events, command and tool to the watchdog. No logic here.
import { CONFIG_DIR_NAME, type ExtensionAPI, type ExtensionCommandContext, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import { runCommand } from "./commands/run-command.ts";
import { COMMAND_NAME, completeArguments } from "./commands/watchdog-command.ts";
import { present } from "./commands/present.ts";
import { subagentTool } from "./children/subagent-tool.ts";
import { guarded } from "./host/guard.ts";
import { FINDING_MESSAGE, NOTE_ENTRY, type NoteData } from "./review/delivery.ts";
import type { Finding } from "./review/finding.ts";
import { renderFindings } from "./review/render.ts";
import { Watchdog } from "./watchdog.ts";

export default function piWatchdog(pi: ExtensionAPI): void {
	const watchdog = new Watchdog({ agentDir: getAgentDir, configDirName: CONFIG_DIR_NAME }, {
		appendEntry: (type, data) => pi.appendEntry(type, data),
		steer: (message) => pi.sendMessage(message as Parameters<typeof pi.sendMessage>[0], { deliverAs: "steer" }),
	});

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
			watchdog.boundary.sessionStart(ctx);
			watchdog.loops.sessionStart();
			refreshUi(ctx);
		}),
	);
	pi.on(
		"input",
		guarded("input", (event, _ctx) => {
			// Only what a person typed or sent over RPC is a user prompt; other extensions' messages are not.
			if (event.source !== "extension") {
				watchdog.boundary.userInput(event.text);
				watchdog.loops.userPrompt();
			}
			return undefined;
		}),
	);
	pi.on("agent_start", guarded("run start", (_event, ctx) => watchdog.boundary.agentStart(ctx)));
	pi.on(
		"tool_call",
		guarded("tool call", async (event, ctx) => {
			await watchdog.boundary.beforeTool(ctx, event.toolName);
			return undefined;
		}),
	);
	pi.on(
		"tool_result",
		guarded("tool result", (event, ctx) => {
			watchdog.boundary.afterTool(ctx, event.toolName, event.input, event.isError);
			watchdog.loops.toolResult(ctx, event);
			return undefined;
		}),
	);
	pi.on(
		"agent_before_settle",
		guarded("boundary review", async (event, ctx) => {
			const result = await watchdog.boundary.beforeSettle(ctx, event);
			if (ctx.mode === "tui") ctx.ui.setStatus("watchdog", watchdog.statusLabel(ctx));
			return result;
		}),
	);
	// A review in flight belongs to the model and session it started with.
	pi.on("model_select", guarded("model change", () => watchdog.boundary.cancel("a model change")));
	pi.on("session_shutdown", guarded("shutdown", () => watchdog.boundary.shutdown()));

	pi.registerMessageRenderer<{ findings?: Finding[] }>(FINDING_MESSAGE, (message, options, theme) =>
		message.details?.findings ? renderFindings(message.details.findings, "sent to the agent", options.expanded, theme) : undefined,
	);
	pi.registerEntryRenderer<NoteData>(NOTE_ENTRY, (entry, options, theme) =>
		entry.data?.finding ? renderFindings([entry.data.finding], entry.data.stalemate ? "stalemate" : "for you only", options.expanded, theme) : undefined,
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
