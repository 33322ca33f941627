// The `subagent` tool's one schema: launches (one child, parallel tasks, a chain), actions on
// runs, and the watchdog actions. The type of the arguments is derived from it.
import { type Static, Type } from "typebox";
import { THINKING_LEVELS } from "../models/index.ts";
import { enumOf } from "../model-call/index.ts";

export const WATCHDOG_ACTIONS = [
	"watchdog.status",
	"watchdog.recommend-model",
	"watchdog.configure",
	"watchdog.check",
	"watchdog.history",
	"watchdog.review",
] as const;
export const RUN_ACTIONS = ["status", "steer", "interrupt", "stop", "wait"] as const;

const step = Type.Object({
	agent: Type.String({ description: "Agent name (see the list below)." }),
	task: Type.String({
		description:
			"What this child should do, self-contained. In a chain, {previous} is replaced " +
			"by the previous step's final answer.",
	}),
	model: Type.Optional(
		Type.String({ description: "\"provider/id[:thinking]\"; default: the agent's model, else this session's." }),
	),
	thinking: Type.Optional(enumOf([...THINKING_LEVELS, "inherit"], "Thinking level for this child.")),
	cwd: Type.Optional(
		Type.String({
			description:
				"Folder the child works in, inside this session's repository; relative to this " +
				"session's folder (default: that folder).",
		}),
	),
	timeoutMs: Type.Optional(
		Type.Integer({ minimum: 1000, description: "Stop the child after this long (at most 86400000, 24 hours)." }),
	),
});

export const subagentParameters = Type.Object({
	action: Type.Optional(
		enumOf(
			[...RUN_ACTIONS, ...WATCHDOG_ACTIONS],
			"Leave out to launch. Run actions: status, steer, interrupt, stop, wait. Watchdog actions: watchdog.*.",
		),
	),
	agent: Type.Optional(
		Type.String({
			description: 'Launch one child: the agent\'s name (with task). watchdog.configure with target "child": the role.',
		}),
	),
	task: Type.Optional(Type.String({ description: "Launch one child: its task (with agent)." })),
	tasks: Type.Optional(
		Type.Array(step, {
			description:
				"Launch children side by side (each writing child gets its own git worktree; its changes are merged back).",
		}),
	),
	chain: Type.Optional(
		Type.Array(step, {
			description: "Launch children one after another; {previous} in a task is the previous step's final answer.",
		}),
	),
	model: Type.Optional(
		Type.String({
			description:
				'A launch: the children\'s model "provider/id[:thinking]". watchdog.configure: ' +
				'the reviewer model, "recommended" or "inherit".',
		}),
	),
	thinking: Type.Optional(
		Type.Union([enumOf([...THINKING_LEVELS, "inherit"], "A thinking level."), Type.Literal(false)], {
			description: "A launch: the children's thinking level. watchdog.configure: the reviewer's (false: off).",
		}),
	),
	cwd: Type.Optional(
		Type.String({
			description:
				"A launch: the folder the children work in, inside this session's repository; " +
				"relative to this session's folder.",
		}),
	),
	timeoutMs: Type.Optional(
		Type.Integer({
			minimum: 1000,
			description:
				"A launch: each child's deadline (at most 86400000, 24 hours). wait: how long to wait (at most 10 minutes).",
		}),
	),
	async: Type.Optional(
		Type.Boolean({
			description: "A launch: run in the background and return a run id at once; a message arrives when it finishes.",
		}),
	),
	id: Type.Optional(Type.String({ description: "status, steer, interrupt, stop, wait: the run id." })),
	message: Type.Optional(Type.String({ description: "steer: what to tell the running children." })),
	enabled: Type.Optional(
		Type.Boolean({ description: "watchdog.configure: turn the watchdog for the target on or off." }),
	),
	force: Type.Optional(
		Type.Boolean({
			description:
				"watchdog.configure: save a model Pi does not know. Without it an unknown model " +
				"is refused with the closest known ones; prefer one of those.",
		}),
	),
	scope: Type.Optional(
		enumOf(["session", "user", "project"] as const, 'watchdog.configure: where the change lives. Default "session".'),
	),
	target: Type.Optional(
		Type.String({
			description:
				'watchdog.configure: "main" (default), "children", or a child role name ("child" with agent: that role).',
		}),
	),
	session: Type.Optional(
		Type.String({
			description: 'watchdog.history: "current" or a session id. Default: every session in this project.',
		}),
	),
	since: Type.Optional(Type.String({ description: 'watchdog.history: "90m", "24h", "7d", or an ISO date/time.' })),
	source: Type.Optional(
		Type.String({
			description: "watchdog.history: review, main, lsp, loops, claims, a child role; several comma-separated.",
		}),
	),
	limit: Type.Optional(
		Type.Integer({
			minimum: 1,
			maximum: 10_000,
			description: "watchdog.history: how many events, newest first. Default 20.",
		}),
	),
	json: Type.Optional(Type.Boolean({ description: "watchdog.history: one JSON object per line instead of text." })),
});

export type SubagentParams = Static<typeof subagentParameters>;
