// `/subagents-watchdog`: parsing its arguments and completing them. Pure; the extension runs
// the parsed operation against the watchdog.
import { isThinking, parseModelRef, THINKING_LEVELS } from "../models/index.ts";
import type { ConfigureRequest, ConfigureScope } from "../settings/index.ts";
import { HELP_TOPICS } from "./help.ts";
import { completeHistory, HISTORY_USAGE, type HistoryRequest, parseHistoryArgs } from "./history-args.ts";

export const COMMAND_NAME = "subagents-watchdog";

export type CommandOp =
	| { kind: "status"; level: "brief" | "all" | "settings" }
	| { kind: "configure"; request: ConfigureRequest }
	| { kind: "recommend" }
	| { kind: "check"; offline?: true }
	| { kind: "history"; request: HistoryRequest }
	| { kind: "fleet"; argv: string[] }
	| { kind: "review" }
	| { kind: "dismiss"; which: number | "all" }
	| { kind: "policy"; policy: "off" | "keep" | "handsoff" }
	| { kind: "settings-accept" }
	| { kind: "test"; severity: "concern" | "blocker"; text: string }
	| { kind: "trust" }
	| { kind: "allow"; id: string }
	| { kind: "help"; topic?: string }
	| { kind: "error"; message: string };

export const USAGE = [
	`/${COMMAND_NAME} [status] [--all|--settings]   at a glance; --all: also your ` +
		`settings and details; --settings: every setting`,
	`/${COMMAND_NAME} on | off                 turn the watchdog on or off in user settings`,
	`/${COMMAND_NAME} session on | off         only for this session`,
	`/${COMMAND_NAME} model <provider/id[:thinking]> [--force] | recommended | inherit ` +
		`  save the reviewer model in user settings (--force: even one Pi does not know)`,
	`/${COMMAND_NAME} session model <…>        only for this session`,
	`/${COMMAND_NAME} thinking <level>         save the reviewer's thinking level ` +
		`(${THINKING_LEVELS.join(", ")}, inherit)`,
	`/${COMMAND_NAME} session thinking <level> only for this session`,
	`/${COMMAND_NAME} [session|project] [children | role <name>] on|off|model …|thinking ` +
		`…   the same for the project's settings, the child watchdogs or one child role`,
	`/${COMMAND_NAME} recommend-model          the reviewer model in effect and the strongest one to pick`,
	`/${COMMAND_NAME} check [--offline]        call the reviewer model once (--offline: ` +
		`only check it resolves and has credentials)`,
	`/${COMMAND_NAME} ${HISTORY_USAGE}   past reviews, findings and failures (default: this project, newest 20)`,
	`/${COMMAND_NAME} review                   review the pending changes now`,
	`/${COMMAND_NAME} fleet [--verbose] [--json] [--nudge] [--stall 3m] [--dormant 24h]   ` +
		`every agent session on this machine, the ones that need you first (docs/fleet.md)`,
	`/${COMMAND_NAME} policy off|keep|handsoff   this session's claims and unfinished-stop ` +
		`checks: off, as usual, or shown to you and never sent to the agent, as are child ` +
		`agents' findings (reviews and loops are not affected)`,
	`/${COMMAND_NAME} dismiss [N|all]          mark finding N of status (default: ` +
		`all) as seen: not raised again, not counted for stalemate`,
	`/${COMMAND_NAME} settings accept          let a settings-file change held back ` +
		`during an agent run (it lowers oversight) take effect`,
	`/${COMMAND_NAME} test concern|blocker [text]   show a sample finding, marked ` +
		`as a test, the way findings reach you (never sent to the agent)`,
	`/${COMMAND_NAME} allow [id]               let one child tool call the permission arbiter ` +
		`denied run once (no id: list them; never a rule's deny)`,
	`/${COMMAND_NAME} help [topic]             the documentation on a topic, or a setting's ` +
		`key (e.g. help lsp.idleMs)`,
	`/${COMMAND_NAME} trust                    trust the project's own files (settings, ` +
		`WATCHDOG.md, agents, language server) as they are now, for this session`,
].join("\n");

export function parseCommand(args: string): CommandOp {
	const words = args.trim().split(/\s+/).filter(Boolean);
	const [first, ...rest] = words;
	if (!first || first === "status") {
		if (rest.length === 0) return { kind: "status", level: "brief" };
		if (rest.length === 1 && (rest[0] === "--all" || rest[0] === "--settings"))
			return { kind: "status", level: rest[0] === "--all" ? "all" : "settings" };
		return { kind: "error", message: `status takes --all or --settings, not "${rest.join(" ")}"` };
	}
	if (first === "help" || first === "--help" || first === "-h")
		return rest.length ? { kind: "help", topic: rest.join(" ") } : { kind: "help" };
	if (first === "recommend-model") return rest.length ? tooMany(first) : { kind: "recommend" };
	if (first === "check") {
		if (rest.length === 0) return { kind: "check" };
		if (rest.length === 1 && rest[0] === "--offline") return { kind: "check", offline: true };
		return { kind: "error", message: `check takes only --offline, not "${rest.join(" ")}".\n${USAGE}` };
	}
	if (first === "review") return rest.length ? tooMany(first) : { kind: "review" };
	if (first === "trust") return rest.length ? tooMany(first) : { kind: "trust" };
	if (first === "allow") {
		if (rest.length === 0) return { kind: "allow", id: "" };
		if (rest.length === 1 && /^[0-9a-z]{1,12}$/.test(rest[0])) return { kind: "allow", id: rest[0] };
		return { kind: "error", message: "allow takes the id a denial notice gave, e.g. /subagents-watchdog allow 1x2ab" };
	}
	if (first === "dismiss") {
		if (rest.length === 0 || (rest.length === 1 && rest[0] === "all")) return { kind: "dismiss", which: "all" };
		if (rest.length === 1 && /^[1-9]\d{0,3}$/.test(rest[0])) return { kind: "dismiss", which: Number(rest[0]) };
		return { kind: "error", message: `dismiss takes a finding's number from status, or all; not "${rest.join(" ")}"` };
	}
	if (first === "policy") {
		if (rest.length === 1 && (rest[0] === "off" || rest[0] === "keep" || rest[0] === "handsoff"))
			return { kind: "policy", policy: rest[0] };
		return {
			kind: "error",
			message: `policy takes off, keep or handsoff${rest.length ? `, not "${rest.join(" ")}"` : ""}`,
		};
	}
	if (first === "settings")
		return rest.length === 1 && rest[0] === "accept"
			? { kind: "settings-accept" }
			: { kind: "error", message: `settings takes accept${rest.length ? `, not "${rest.join(" ")}"` : ""}` };
	if (first === "test") {
		const [severity, ...text] = rest;
		if (severity !== "concern" && severity !== "blocker")
			return {
				kind: "error",
				message: `test takes concern or blocker, then an optional text${severity ? `; not "${severity}"` : ""}`,
			};
		return { kind: "test", severity, text: text.join(" ") };
	}
	if (first === "fleet") return { kind: "fleet", argv: rest };
	if (first === "history") {
		const parsed = parseHistoryArgs(rest);
		return parsed.ok ? { kind: "history", request: parsed.request } : { kind: "error", message: parsed.error };
	}
	return parseSetting(words);
}

/** `[session|project] [children | role <name>] <verb> [value]`; user scope and the main watchdog when left out. */
function parseSetting(all: string[]): CommandOp {
	const force = all.includes("--force");
	const words = all.filter((w) => w !== "--force");
	let i = 0;
	let scope: ConfigureScope = "user";
	if (words[i] === "session" || words[i] === "project") scope = words[i++] as ConfigureScope;
	let target = "main";
	if (words[i] === "children") target = words[i++];
	else if (words[i] === "role") {
		if (!words[i + 1])
			return {
				kind: "error",
				message: `${words.slice(0, i + 1).join(" ")} needs a role name, then on, off, model or thinking`,
			};
		target = words[i + 1];
		i += 2;
	}
	const shown = words
		.slice(0, i)
		.map((w) => `${w} `)
		.join("");
	const [verb, value, ...extra] = words.slice(i);
	if (extra.length) return tooMany(`${shown}${verb}`);
	const request = (r: Omit<ConfigureRequest, "scope" | "target">): CommandOp => ({
		kind: "configure",
		request: { scope, target, ...r },
	});
	if (force && verb !== "model")
		return { kind: "error", message: `--force goes with model <provider/id>, to save a model Pi does not know` };
	switch (verb) {
		case "on":
		case "off":
			return value ? tooMany(`${shown}${verb}`) : request({ enabled: verb === "on" });
		case "model":
			if (!value)
				return {
					kind: "error",
					message: `${shown}model needs a value: provider/id[:thinking], recommended, or inherit`,
				};
			return request({ model: value, ...(force ? { force: true } : {}) });
		case "thinking":
			if (!value || !(isThinking(value) || value === "inherit" || value === "false")) {
				return {
					kind: "error",
					message: `${shown}thinking needs a level: ${THINKING_LEVELS.join(", ")} or inherit (false: off)`,
				};
			}
			return request({ thinking: value === "false" ? "off" : value });
		default:
			return { kind: "error", message: `unknown subcommand "${shown}${verb ?? ""}".\n${USAGE}` };
	}
}

/** The commands a user types to make `request` themselves: the inverse of parsing. */
export function commandsFor(request: ConfigureRequest): string[] {
	const head = [
		`/${COMMAND_NAME}`,
		...(request.scope === "user" ? [] : [request.scope]),
		...(request.target === "main" ? [] : request.target === "children" ? ["children"] : ["role", request.target]),
	].join(" ");
	const commands: string[] = [];
	if (request.enabled !== undefined) commands.push(`${head} ${request.enabled ? "on" : "off"}`);
	let thinking = request.thinking;
	if (request.model !== undefined) {
		const model = request.model.trim();
		const parsed = parseModelRef(model);
		const force = request.force && parsed.ok ? " --force" : "";
		// A level joins the model as its suffix, replacing one the model carried; "inherit" cannot be a suffix.
		if (parsed.ok && thinking !== undefined && isThinking(thinking)) {
			commands.push(`${head} model ${parsed.ref.provider}/${parsed.ref.id}:${thinking}${force}`);
			thinking = undefined;
		} else commands.push(`${head} model ${model}${force}`);
	}
	if (thinking !== undefined) commands.push(`${head} thinking ${thinking}`);
	return commands;
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
	["recommend-model", "the model in effect and the strongest pick"],
	["check", "call the reviewer model once"],
	["history", "past reviews, findings and failures"],
	["fleet", "every agent session on this machine, attention first"],
	["review", "review the pending changes now"],
	["dismiss", "mark findings as seen"],
	["policy", "this session's claims and unfinished-stop checks: off, keep or handsoff"],
	["settings", "accept a held-back settings-file change"],
	["test", "show a sample finding (concern or blocker), marked as a test"],
	["trust", "trust the project's own files as they are now"],
	["help", "the documentation on a topic"],
	["allow", "let one denied child tool call run once"],
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
	else if (done[0] === "history") options = completeHistory(done.slice(1));
	else if (done[0] === "fleet")
		options = [
			["--verbose", "every session, not only those that need you"],
			["--json", "the whole pass as JSON"],
			["--nudge", "nudge the idle sessions"],
			["--stall", "quiet this long after a stop is idle (e.g. 3m)"],
			["--dormant", "quiet this long is dormant (e.g. 24h)"],
		];
	else if (done[0] === "status")
		options =
			done.length === 1
				? [
						["--all", "your settings and each part's details"],
						["--settings", "every setting, defaults too"],
					]
				: [];
	else if (done[0] === "dismiss") options = done.length === 1 ? [["all", "every recent finding"]] : [];
	else if (done[0] === "policy")
		options =
			done.length === 1
				? [
						["off", "no claim or unfinished-stop checks"],
						["keep", "as usual (default)"],
						["handsoff", "claims and stops shown to you, never sent to the agent"],
					]
				: [];
	else if (done[0] === "settings")
		options = done.length === 1 ? [["accept", "let the held-back change take effect"]] : [];
	else if (done[0] === "test")
		options =
			done.length === 1
				? [
						["concern", "a sample concern"],
						["blocker", "a sample blocker"],
					]
				: [];
	else if (done[0] === "help") options = done.length === 1 ? HELP_TOPICS.map((t): [string, string] => [t, ""]) : [];
	else if (done[0] === "check")
		options = done.length === 1 ? [["--offline", "only resolve the model and its credentials"]] : [];
	else if (isSettingHead(done)) options = TOP.filter(([v]) => ["on", "off", "model", "thinking"].includes(v));
	else if (last === "model")
		options = [
			["recommended", "the strongest model of another family"],
			["inherit", "use the session's model"],
			...models.map((m): [string, string] => [m, ""]),
		];
	else if (done.at(-2) === "model" && !["recommended", "inherit", "--force"].includes(last ?? ""))
		options = [["--force", "save it even if Pi does not know the model"]];
	else if (last === "thinking") options = [...THINKING_LEVELS, "inherit"].map((l): [string, string] => [l, ""]);
	const items = options
		.filter(([v]) => v.startsWith(partial))
		.slice(0, 50)
		.map(([v, d]) => ({ value: `${lead}${v}`, label: v, ...(d ? { description: d } : {}) }));
	return items.length ? items : null;
}

/** Whether `words` are a scope and/or target, so a verb comes next. */
function isSettingHead(words: string[]): boolean {
	let i = 0;
	if (words[i] === "session" || words[i] === "project") i++;
	if (words[i] === "children") i++;
	else if (words[i] === "role" && words[i + 1]) i += 2;
	return i > 0 && i === words.length;
}
