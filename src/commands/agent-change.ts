// A settings change an agent asks for (the `subagent` tool's `watchdog.configure`), as opposed
// to the user's own command. One that lowers oversight needs the user's yes in the TUI and is
// refused where nobody can be asked (print, RPC); every change is announced and recorded.
import {
	type ConfigureEnv,
	type ConfigurePlan,
	type ConfigureRequest,
	planConfigure,
	settingsAtScope,
} from "../settings/index.ts";
import { loweredOversight } from "../settings/index.ts";
import { askToLower, type Chooser, type Level } from "../host/index.ts";
import { commandsFor } from "./watchdog-command.ts";

export const CONFIG_CHANGE_ENTRY = "watchdog-config-change";

export type ChangeOutcome = "applied" | "refused" | "declined";

/** Kept in the session (never sent to the model); the history log reads these. */
export interface ConfigChangeEntry {
	at: string;
	by: "agent";
	request: ConfigureRequest;
	/** Why the change lowers oversight; empty when it does not. */
	lowered: string[];
	outcome: ChangeOutcome;
	/** The command(s) the user can run to make the same change, one per line. */
	command: string;
}

export interface AgentChangeDeps {
	env: ConfigureEnv;
	/** Pi's mode where the user is, named in a refusal. */
	mode: string;
	/** Who asked, in the user's notices ("the agent", "the worker child agent"). */
	who?: string;
	/** Asks the user to pick one of `choices` (undefined: dismissed); absent where nobody can be asked. */
	ask?: Chooser;
	/** Saves the planned change and returns what was done. */
	apply(plan: ConfigurePlan): Promise<string>;
	record(entry: ConfigChangeEntry): void;
	/** Shows the user a notice; false when it reached nobody (the agent is then not told it did). */
	announce(text: string, level: Level): boolean;
}

/** Handles one agent request; returns what the agent is told. Throws on bad input, saving nothing. */
export async function agentConfigure(
	deps: AgentChangeDeps,
	request: ConfigureRequest,
): Promise<{ outcome: ChangeOutcome; text: string }> {
	const plan = await planConfigure(deps.env, request);
	const before = settingsAtScope(deps.env.store, deps.env.project, request.scope).settings;
	const lowered = loweredOversight(before, plan.changes, deps.env.session);
	const commands = commandsFor(request);
	const command = commands.join("\n");
	const why = lowered.join("; ");
	const indented = commands.map((c) => `  ${c}`).join("\n");
	const finish = (outcome: ChangeOutcome) =>
		deps.record({ at: new Date().toISOString(), by: "agent", request, lowered, outcome, command });
	const who = deps.who ?? "the agent";
	const Who = who.charAt(0).toUpperCase() + who.slice(1);
	const untold = "The user could not be told of this directly: say so in your answer.";

	if (lowered.length === 0) {
		const done = await deps.apply(plan);
		finish("applied");
		const told = deps.announce(`${Who} changed the watchdog settings: ${done}`, "info");
		return { outcome: "applied", text: `${done}\n${told ? "The user has been told of this change." : untold}` };
	}
	if (!deps.ask) {
		finish("refused");
		const told = deps.announce(
			`Refused a change ${who} asked for, because it lowers the watchdog's oversight: ` +
				`${why}.\nTo make it yourself:\n${indented}`,
			"warning",
		);
		return {
			outcome: "refused",
			text: [
				`Not changed: this change lowers the watchdog's oversight (${why}).`,
				`An agent may make such a change only with the user's confirmation, and in ${deps.mode} ` +
					`mode there is no way to ask. Only the user can make it, with:`,
				indented,
				told ? "The user has been told. Do not retry it." : `Do not retry it. ${untold}`,
			].join("\n"),
		};
	}
	const yes = await askToLower(
		deps.ask,
		`Let ${who} lower the watchdog's oversight?`,
		`${Who} asks for the same as:\n${indented}\n\nThis lowers oversight:\n${lowered.map((r) => `- ${r}`).join("\n")}`,
	);
	if (!yes) {
		finish("declined");
		deps.announce(
			`You declined ${who}'s change to the watchdog settings (it lowers oversight: ` +
				`${why}). To make it later:\n${indented}`,
			"info",
		);
		return {
			outcome: "declined",
			text: [
				`Not changed: the user declined this change, which lowers the watchdog's oversight (${why}).`,
				"Only the user can make it, with:",
				indented,
				"Do not ask again unless the user brings it up.",
			].join("\n"),
		};
	}
	const done = await deps.apply(plan);
	finish("applied");
	deps.announce(`Applied ${who}'s change you confirmed (it lowers oversight: ${why}): ${done}`, "info");
	return {
		outcome: "applied",
		text: `The user confirmed this change, which lowers the watchdog's oversight (${why}).\n${done}`,
	};
}
