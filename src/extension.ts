// Entry point Pi loads: registers Pi's events, the renderers, the command and the tool, and
// forwards each to the session's watchdog (src/session/watchdog-session.ts). No logic here.
import {
	CONFIG_DIR_NAME,
	type ExtensionAPI,
	type ExtensionCommandContext,
	type ExtensionContext,
	type ExtensionFactory,
	getAgentDir,
} from "@earendil-works/pi-coding-agent";
import { cleanStaleRuns, launcherDeps, subagentTool } from "./children/index.ts";
import { COMMAND_NAME, completeArguments, runCommand } from "./commands/index.ts";
import {
	type Finding,
	FINDING_MESSAGE,
	NOTE_ENTRY,
	type NoteData,
	type Question,
	QUESTION_MESSAGE,
	QUESTION_NOTE,
} from "./findings/index.ts";
import { guarded, present, quietly, renderFindings, renderQuestion } from "./host/index.ts";
import { type WatchdogOptions, WatchdogSession } from "./session/index.ts";

/** Pi's extension factory for one watchdog: the main session's, or a child's (role, parent). */
export function createWatchdogExtension(options: WatchdogOptions = { role: "main" }): ExtensionFactory {
	return (pi: ExtensionAPI) => {
		const watchdog = new WatchdogSession(
			{ agentDir: getAgentDir, configDirName: CONFIG_DIR_NAME },
			{
				appendEntry: (type, data) => pi.appendEntry(type, data),
				steer: (message) => pi.sendMessage(message as Parameters<typeof pi.sendMessage>[0], { deliverAs: "steer" }),
				wake: (message) => pi.sendMessage(message as Parameters<typeof pi.sendMessage>[0], { triggerTurn: true }),
				post: (message) => pi.sendMessage(message as Parameters<typeof pi.sendMessage>[0]),
				setModel: (model) => pi.setModel(model),
				setThinkingLevel: (level) => pi.setThinkingLevel(level),
			},
			options,
		);

		const refreshUi = (ctx: ExtensionContext) => {
			const notice = watchdog.settingsNotice(ctx);
			if (notice) present(ctx, notice, "warning");
			if (ctx.mode === "tui" || ctx.mode === "rpc")
				quietly(() => ctx.ui.setStatus("watchdog", watchdog.statusLabel(ctx)));
		};

		pi.on(
			"session_start",
			guarded("session start", (_event, ctx) => {
				watchdog.sessionStart(ctx);
				refreshUi(ctx);
				if (options.role === "main") void cleanStaleRuns(getAgentDir(), ctx.cwd).catch(() => {});
			}),
		);
		pi.on(
			"input",
			guarded("input", (event, _ctx) => {
				watchdog.anyInput();
				// Only what a person typed or sent over RPC is a user prompt; other extensions' messages are not.
				if (event.source !== "extension") watchdog.userInput(event.text);
				return undefined;
			}),
		);
		pi.on(
			"agent_start",
			guarded("run start", (_event, ctx) => watchdog.agentStart(ctx)),
		);
		pi.on(
			"turn_end",
			guarded("turn end", (event, ctx) => {
				watchdog.turnEnd(ctx, event);
				return undefined;
			}),
		);
		pi.on(
			"session_compact",
			guarded("compaction", () => watchdog.compacted()),
		);
		pi.on(
			"tool_call",
			guarded("tool call", (event, ctx) => watchdog.toolCall(ctx, event)),
		);
		pi.on(
			"tool_result",
			guarded("tool result", (event, ctx) => {
				watchdog.toolResult(ctx, event);
				return undefined;
			}),
		);
		pi.on(
			"message_end",
			guarded("message end", (event, ctx) => {
				watchdog.assistantMessage(ctx, event.message);
				return undefined;
			}),
		);
		pi.on(
			"agent_before_settle",
			guarded("boundary review", async (event, ctx) => {
				const result = await watchdog.beforeSettle(ctx, event);
				// The footer's word must never cost the boundary its result (the review's record, findings, continue).
				if (ctx.mode === "tui" || ctx.mode === "rpc")
					quietly(() => ctx.ui.setStatus("watchdog", watchdog.statusLabel(ctx)));
				return result;
			}),
		);
		pi.on(
			"model_select",
			guarded("model change", () => watchdog.modelChange()),
		);
		pi.on(
			"session_shutdown",
			guarded("shutdown", () => watchdog.shutdown()),
		);

		pi.registerMessageRenderer<{ findings?: Finding[] }>(FINDING_MESSAGE, (message, renderOptions, theme) =>
			message.details?.findings
				? renderFindings(message.details.findings, "sent to the agent", renderOptions.expanded, theme)
				: undefined,
		);
		pi.registerMessageRenderer<{ question?: Question }>(QUESTION_MESSAGE, (message, renderOptions, theme) =>
			message.details?.question
				? renderQuestion(message.details.question, "sent to the agent", renderOptions.expanded, theme)
				: undefined,
		);
		pi.registerEntryRenderer<Question & { reason?: string }>(QUESTION_NOTE, (entry, renderOptions, theme) =>
			entry.data?.question
				? renderQuestion(entry.data, `not sent: ${entry.data.reason ?? "held back"}`, renderOptions.expanded, theme)
				: undefined,
		);
		pi.registerEntryRenderer<NoteData>(NOTE_ENTRY, (entry, renderOptions, theme) =>
			entry.data?.finding
				? renderFindings(
						[entry.data.finding],
						entry.data.stalemate ? "stalemate" : "for you only",
						renderOptions.expanded,
						theme,
					)
				: undefined,
		);

		pi.registerCommand(COMMAND_NAME, {
			description:
				"Watchdog: status | on | off | session on|off | model <ref>|recommended|inherit " +
				"| thinking <level> | recommend-model | check",
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

		pi.registerTool(
			subagentTool(
				watchdog,
				refreshUi,
				launcherDeps({
					agentDir: getAgentDir(),
					configDirName: CONFIG_DIR_NAME,
					childWatchdog: (child) => createWatchdogExtension(child),
				}),
			),
		);
	};
}

/** The main session's watchdog. */
export default createWatchdogExtension({ role: "main" });
