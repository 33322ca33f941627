// `/subagents-watchdog`: parsing its arguments and completing them. Pure; the extension runs
// the parsed operation against the watchdog.
import { isThinking, THINKING_LEVELS } from "../models/model-ref.ts";
import type { ConfigureRequest } from "../settings/configure.ts";

export const COMMAND_NAME = "subagents-watchdog";

export type CommandOp =
	| { kind: "status" }
	| { kind: "configure"; request: ConfigureRequest }
	| { kind: "recommend" }
	| { kind: "check" }
	| { kind: "help" }
	| { kind: "error"; message: string };

export const USAGE = [
	`/${COMMAND_NAME} [status]                 show settings, their sources, the model in effect and runtime state`,
	`/${COMMAND_NAME} on | off                 turn the watchdog on or off in user settings`,
	`/${COMMAND_NAME} session on | off         only for this session`,
	`/${COMMAND_NAME} model <provider/id[:thinking]> | recommended | inherit   save the reviewer model in user settings`,
	`/${COMMAND_NAME} session model <…>        only for this session`,
	`/${COMMAND_NAME} thinking <level>         save the reviewer's thinking level (${THINKING_LEVELS.join(", ")}, inherit)`,
	`/${COMMAND_NAME} session thinking <level> only for this session`,
	`/${COMMAND_NAME} recommend-model          suggest a reviewer model`,
	`/${COMMAND_NAME} check                    check that the reviewer model resolves and has credentials`,
].join("\n");

export function parseCommand(args: string): CommandOp {
	const words = args.trim().split(/\s+/).filter(Boolean);
	const [first, ...rest] = words;
	if (!first || first === "status") return rest.length ? tooMany(first ?? "status") : { kind: "status" };
	if (first === "help" || first === "--help" || first === "-h") return { kind: "help" };
	if (first === "recommend-model") return rest.length ? tooMany(first) : { kind: "recommend" };
	if (first === "check") return rest.length ? tooMany(first) : { kind: "check" };
	if (first === "session") return parseSetting(rest, "session", "session ");
	return parseSetting(words, "user", "");
}

function parseSetting(words: string[], scope: "session" | "user", shown: string): CommandOp {
	const [verb, value, ...extra] = words;
	if (extra.length) return tooMany(`${shown}${verb}`);
	const request = (r: Omit<ConfigureRequest, "scope" | "target">): CommandOp => ({ kind: "configure", request: { scope, target: "main", ...r } });
	switch (verb) {
		case "on":
		case "off":
			return value ? tooMany(`${shown}${verb}`) : request({ enabled: verb === "on" });
		case "model":
			if (!value) return { kind: "error", message: `${shown}model needs a value: provider/id[:thinking], recommended, or inherit` };
			return request({ model: value });
		case "thinking":
			if (!value || !(isThinking(value) || value === "inherit")) {
				return { kind: "error", message: `${shown}thinking needs a level: ${THINKING_LEVELS.join(", ")} or inherit` };
			}
			return request({ thinking: value });
		default:
			return { kind: "error", message: `unknown subcommand "${shown}${verb ?? ""}".\n${USAGE}` };
	}
}

function tooMany(what: string): CommandOp {
	return { kind: "error", message: `"${what}" takes no further arguments.\n${USAGE}` };
}

interface Completion {
	value: string;
	label: string;
	description?: string;
}

const TOP: Array<[string, string]> = [
	["status", "settings, sources, model, runtime state"],
	["on", "turn on (user settings)"],
	["off", "turn off (user settings)"],
	["session", "change only this session"],
	["model", "save the reviewer model"],
	["thinking", "save the reviewer thinking level"],
	["recommend-model", "suggest a reviewer model"],
	["check", "check model and credentials"],
];

/** Completes the whole argument text; `models` are the known model refs for `model …`. */
export function completeArguments(prefix: string, models: readonly string[]): Completion[] | null {
	const endsWithSpace = /\s$/.test(prefix);
	const words = prefix.trim().split(/\s+/).filter(Boolean);
	const done = endsWithSpace ? words : words.slice(0, -1);
	const partial = endsWithSpace ? "" : (words.at(-1) ?? "");
	const lead = done.length ? `${done.join(" ")} ` : "";
	let options: Array<[string, string]> = [];
	const last = done.at(-1);
	if (done.length === 0) options = TOP;
	else if (done.length === 1 && last === "session") options = TOP.filter(([v]) => ["on", "off", "model", "thinking"].includes(v));
	else if (last === "model") options = [["recommended", "the strongest model of another family"], ["inherit", "use the session's model"], ...models.map((m): [string, string] => [m, ""])];
	else if (last === "thinking") options = [...THINKING_LEVELS, "inherit"].map((l): [string, string] => [l, ""]);
	const items = options
		.filter(([v]) => v.startsWith(partial))
		.slice(0, 50)
		.map(([v, d]) => ({ value: `${lead}${v}`, label: v, ...(d ? { description: d } : {}) }));
	return items.length ? items : null;
}
