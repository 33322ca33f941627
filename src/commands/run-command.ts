// Runs one `/subagents-watchdog` invocation against the watchdog and says what to show.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Ctx, WatchdogSession as Watchdog } from "../session/index.ts";
import { check, configure, recommend } from "./controls.ts";
import { runFleet } from "./fleet-command.ts";
import { historyEnv, runHistory } from "./history-command.ts";
import type { Level } from "../host/index.ts";
import { helpFor, helpIndex, packageDocs } from "./help.ts";
import { setPolicy } from "./policy.ts";
import { allowOnce } from "./allow.ts";
import { showTestFinding } from "./test-finding.ts";
import { parseCommand, USAGE } from "./watchdog-command.ts";

export interface CommandOutcome {
	text: string;
	level: Level;
	/** Whether settings may have changed (the footer label wants a refresh). */
	changed: boolean;
}

/** A command's context also has the session (history's `--session current`). */
export type CommandCtx = Ctx & Partial<Pick<ExtensionContext, "sessionManager">>;

export async function runCommand(watchdog: Watchdog, args: string, ctx: CommandCtx): Promise<CommandOutcome> {
	const op = parseCommand(args);
	const say = (text: string, level: Level = "info", changed = false): CommandOutcome => ({ text, level, changed });
	switch (op.kind) {
		case "status":
			return say(watchdog.statusText(ctx, op.level));
		case "help":
			return say(op.topic ? helpFor(op.topic, packageDocs()) : helpIndex(USAGE));
		case "error":
			return say(`Watchdog: ${op.message}`, "error");
		case "recommend":
			return say(await recommend(watchdog, ctx));
		case "check": {
			const result = await check(watchdog, ctx, { offline: op.offline });
			return say(result.lines.join("\n"), result.ok ? "info" : "warning");
		}
		case "configure":
			try {
				return say(await configure(watchdog, ctx, op.request), "info", true);
			} catch (error) {
				// Bad input (an unknown model, an untrusted project): nothing was saved; say why.
				return say(`Watchdog: ${error instanceof Error ? error.message : String(error)}`, "error");
			}
		case "review": {
			const result = await watchdog.reviewNow(ctx as ExtensionContext);
			return say(result.text, result.level);
		}
		case "dismiss": {
			const dismissed = watchdog.dismiss(ctx as ExtensionContext, op.which);
			if (!dismissed.length)
				return say(
					op.which === "all"
						? "Nothing to dismiss: no recent finding is open."
						: `There is no open finding ${op.which}; status lists them with their numbers.`,
					"warning",
				);
			return say(
				`Dismissed ${dismissed.length} finding(s); they will not be raised ` +
					`again:\n${dismissed.map((f) => `- ${f.summary}`).join("\n")}`,
			);
		}
		case "settings-accept":
			return say(watchdog.acceptSettings(ctx as ExtensionContext), "info", true);
		case "policy":
			return say(setPolicy(watchdog, ctx, op.policy), "info", true);
		case "trust":
			return say(watchdog.trustNow(ctx), "info", true);
		case "history": {
			const result = await runHistory(op.request, historyEnv(ctx));
			return say(result.text, result.level);
		}
		case "fleet": {
			const result = await runFleet(watchdog, ctx, op.argv);
			return say(result.text, result.level);
		}
		case "test":
			return say(showTestFinding(watchdog, ctx as ExtensionContext, op.severity, op.text));
		case "allow":
			return allowOnce(watchdog, ctx, op.id);
	}
}
