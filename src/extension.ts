// Entry point Pi loads: registers Pi's events, the renderers, the command and the tool, and
// forwards each to the session's watchdog (src/session/watchdog-session.ts). No logic here.
// The watchdog's code loads when the session first needs it (src/startup/): at once, unless the
// watchdog is off at start; this file and what it imports statically are all a start with it off loads.
import {
	CONFIG_DIR_NAME,
	type ExtensionAPI,
	type ExtensionCommandContext,
	type ExtensionContext,
	type ExtensionFactory,
	getAgentDir,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { SUBAGENT_TOOL } from "./children/index.ts";
import { COMMAND_NAME, completeArguments } from "./commands/index.ts";
import {
	type Finding,
	FINDING_MESSAGE,
	NOTE_ENTRY,
	type NoteData,
	type Question,
	QUESTION_MESSAGE,
	QUESTION_NOTE,
} from "./findings/index.ts";
import { registerHeadlessFlags } from "./headless/index.ts";
import { guarded, present, quietly, renderFindings, renderQuestion } from "./host/index.ts";
import type { WatchdogHost, WatchdogOptions, WatchdogSession } from "./session/index.ts";
import { DeferredWatchdog, startsDormant } from "./startup/index.ts";

const SETTINGS_POLL_MS = 2_000;

/** Pi's extension factory for one watchdog: the main session's, or a child's (role, parent). */
export function createWatchdogExtension(options: WatchdogOptions = { role: "main" }): ExtensionFactory {
	return (pi: ExtensionAPI) => {
		const host: WatchdogHost = {
			appendEntry: (type, data) => pi.appendEntry(type, data),
			steer: (message) => pi.sendMessage(message as Parameters<typeof pi.sendMessage>[0], { deliverAs: "steer" }),
			wake: (message) => pi.sendMessage(message as Parameters<typeof pi.sendMessage>[0], { triggerTurn: true }),
			post: (message) => pi.sendMessage(message as Parameters<typeof pi.sendMessage>[0]),
			setModel: (model) => pi.setModel(model),
			setThinkingLevel: (level) => pi.setThinkingLevel(level),
			flag: (name) => pi.getFlag(name),
		};
		const location = { agentDir: getAgentDir, configDirName: CONFIG_DIR_NAME };

		// The footer's word as last set here; `changesOnly` leaves it alone when it is the same (a poll must not
		// flood an RPC client with status requests, nor overwrite "reviewing" with the same state).
		let shown: string | undefined | null = null;
		const refreshUi = (ctx: ExtensionContext, changesOnly = false) => {
			const watchdog = deferred.current;
			if (!watchdog) return;
			const notice = watchdog.settingsNotice(ctx);
			if (notice) present(ctx, notice, "warning");
			if (ctx.mode !== "tui" && ctx.mode !== "rpc") return;
			const label = watchdog.statusLabel(ctx);
			if (changesOnly && label === shown) return;
			shown = label;
			quietly(() => ctx.ui.setStatus("watchdog", label));
		};
		// Settings files edited between prompts (an error made or fixed) reach the footer and the notices
		// within seconds, not at the next prompt: one stat per settings file each time.
		let poll: ReturnType<typeof setInterval> | undefined;
		// The watchdog's code once loaded, and the subagent tool made with the watchdog.
		let core: typeof import("./watchdog-core.ts") | undefined;
		let tool: ToolDefinition | undefined;

		const deferred: DeferredWatchdog<WatchdogSession> = new DeferredWatchdog({
			make: async () => {
				core = await import("./watchdog-core.ts");
				const { WatchdogSession } = core;
				const watchdog = new WatchdogSession(location, host, options);
				const launcher = { agentDir: getAgentDir(), configDirName: CONFIG_DIR_NAME };
				const childWatchdog = (child: WatchdogOptions) => createWatchdogExtension(child);
				tool = core.subagentTool(watchdog, refreshUi, core.launcherDeps({ ...launcher, childWatchdog }));
				return watchdog;
			},
			start: (watchdog, ctx) => {
				watchdog.sessionStart(ctx);
				refreshUi(ctx);
				clearInterval(poll);
				if (options.role === "main") {
					poll = setInterval(() => quietly(() => refreshUi(ctx, true)), SETTINGS_POLL_MS);
					poll.unref();
					void core?.cleanStaleRuns(getAgentDir(), ctx.cwd).catch(() => {});
				}
			},
			replay: (watchdog, inputs) => {
				for (const input of inputs) {
					watchdog.anyInput();
					if (input.user) watchdog.userInput(input.text);
				}
			},
			failed: (error, ctx) => present(ctx, `watchdog: could not load: ${(error as Error)?.message ?? error}`, "error"),
		});

		pi.on(
			"session_start",
			guarded("session start", (_event, ctx) => {
				const entries = ctx.sessionManager.getBranch();
				const flag = (name: string) => pi.getFlag(name);
				const dormant =
					options.role === "main" &&
					startsDormant({ agentDir: getAgentDir(), configDirName: CONFIG_DIR_NAME, cwd: ctx.cwd, entries, flag });
				return deferred.sessionStart(ctx, dormant);
			}),
		);
		pi.on(
			"input",
			guarded("input", async (event, _ctx) => {
				// Only what a person typed or sent over RPC is a user prompt; other extensions' messages are not.
				const user = event.source !== "extension";
				deferred.remember({ text: event.text, user });
				const watchdog = await deferred.ready();
				watchdog?.anyInput();
				if (user) watchdog?.userInput(event.text);
				return undefined;
			}),
		);
		pi.on(
			"agent_start",
			guarded("run start", async (_event, ctx) => {
				refreshUi(ctx, true);
				return (await deferred.ready())?.agentStart(ctx);
			}),
		);
		pi.on(
			"turn_end",
			guarded("turn end", async (event, ctx) => {
				(await deferred.ready())?.turnEnd(ctx, event);
				return undefined;
			}),
		);
		pi.on(
			"session_compact",
			guarded("compaction", async () => (await deferred.ready())?.compacted()),
		);
		pi.on(
			"tool_call",
			guarded("tool call", async (event, ctx) => (await deferred.ready())?.toolCall(ctx, event)),
		);
		pi.on(
			"tool_result",
			guarded("tool result", async (event, ctx) => {
				(await deferred.ready())?.toolResult(ctx, event);
				return undefined;
			}),
		);
		pi.on(
			"message_end",
			guarded("message end", async (event, ctx) => {
				(await deferred.ready())?.assistantMessage(ctx, event.message);
				return undefined;
			}),
		);
		pi.on(
			"agent_before_settle",
			guarded("boundary review", async (event, ctx) => {
				const watchdog = await deferred.ready();
				if (!watchdog) return undefined;
				const result = await watchdog.beforeSettle(ctx, event);
				// The footer's word must never cost the boundary its result (the review's record, findings, continue).
				quietly(() => refreshUi(ctx));
				return result;
			}),
		);
		pi.on(
			"model_select",
			guarded("model change", async () => (await deferred.ready())?.modelChange()),
		);
		pi.on(
			"session_shutdown",
			guarded("shutdown", (event, ctx) => {
				clearInterval(poll);
				deferred.shutdown();
				return deferred.current?.shutdown(ctx, event.reason);
			}),
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
					return completeArguments(prefix, deferred.current?.knownModelRefs() ?? []);
				} catch {
					return null;
				}
			},
			handler: guarded(`/${COMMAND_NAME}`, async (args: string, ctx: ExtensionCommandContext) => {
				const watchdog = await deferred.load();
				if (!core) throw new Error("the watchdog did not load");
				watchdog.rememberModels(ctx);
				const outcome = await core.runCommand(watchdog, args, ctx);
				present(ctx, outcome.text, outcome.level);
				refreshUi(ctx, !outcome.changed);
			}),
		});

		if (options.role === "main") registerHeadlessFlags(pi);

		// Registered at once (the model sees it from the first turn); its code loads when it first runs.
		pi.registerTool({
			...SUBAGENT_TOOL,
			async execute(id, params, signal, onUpdate, ctx) {
				await deferred.load();
				if (!tool) throw new Error("the subagent tool did not load");
				return tool.execute(id, params, signal, onUpdate, ctx);
			},
		});
	};
}

/** The main session's watchdog. */
export default createWatchdogExtension({ role: "main" });
