// The `subagents.watchdog` settings tree: its shape (zod), its defaults, and the TypeScript
// types derived from them. One schema serves every source (user, project, session): each key
// is optional in a layer; the defaults fill what no layer sets.
import { z } from "zod";
import { DEFAULT_THRESHOLDS, type LoopThresholds } from "../loops/index.ts";
import { isBareModelId, parseModelRef, THINKING_LEVELS, type ThinkingSetting } from "../models/index.ts";
import { SERVER_MEMORY_MB } from "../lsp/index.ts";
import { MAX_STAR_GLOB_CHARS } from "../util/index.ts";

// Settings are parsed a few times a session: compiling a fast path per object schema (zod's JIT) costs more at start-up
// than it ever saves.
z.config({ jitless: true });

/** The longest a child may run: a day, well under the 2^31-1 ms past which Node's timers fire at once. */
export const MAX_CHILD_TIMEOUT_MS = 86_400_000;
export const MAX_CHILD_TIMEOUT_TEXT = `${MAX_CHILD_TIMEOUT_MS} ms (24 hours)`;

/** The deepest `children.maxDepth` may go. */
export const MAX_TREE_DEPTH = 5;

/** Patterns one allow or deny list may hold. */
export const MAX_RULE_PATTERNS = 64;

type ObjectMaker = typeof z.strictObject;

// A bare id (pi-subagents' form, `claude-opus-4-8[:high]`) is resolved against Pi's models when the session reads it.
export const modelRefField = z.string().refine((v) => v === "inherit" || parseModelRef(v).ok || isBareModelId(v), {
	error:
		'must be "inherit", a model reference provider/id[:thinking] (e.g. anthropic/claude-opus-4-8:high), ' +
		"or a bare model id",
});
const THINKING_RULE = `must be one of ${THINKING_LEVELS.join(", ")} or inherit (false: off)`;
// `false` is pi-subagents' spelling of off.
export const thinkingField = z.union(
	[z.literal(false).transform(() => "off" as const), z.enum([...THINKING_LEVELS, "inherit"])],
	{ error: THINKING_RULE },
);
const positiveMs = (min: number) =>
	z.int({ error: "must be a whole number of milliseconds" }).min(min, { error: `must be at least ${min} ms` });
const CADENCE_RULE = "must be 0, false or null (off), or a whole number of tool results of at least 5";
// `null` is pi-subagents' spelling of off.
export const cadenceEvery = z.union(
	[
		z.literal(0),
		z.literal(false),
		z.null().transform(() => 0 as const),
		z.int({ error: CADENCE_RULE }).min(5, { error: CADENCE_RULE }),
	],
	{ error: CADENCE_RULE },
);
// Launch-rule patterns: bounded in length and number, so judging a launch stays cheap.
const globList = z
	.array(
		z
			.string({ error: 'must be a glob pattern (text), e.g. "openai/*"' })
			.min(1, { error: "a pattern may not be empty" })
			.max(MAX_STAR_GLOB_CHARS, { error: `a pattern may be at most ${MAX_STAR_GLOB_CHARS} characters long` }),
		{ error: 'must be a list of glob patterns, e.g. ["openai/*", "anthropic/claude-*:high"]' },
	)
	.max(MAX_RULE_PATTERNS, { error: `at most ${MAX_RULE_PATTERNS} patterns per list` });

/** Builds the layer schema; `strict` reports unknown keys, `strip` drops them. */
function layerSchema(obj: ObjectMaker) {
	const cadence = obj({ everyNTools: cadenceEvery.optional() });
	const childRole = obj({
		enabled: z.boolean().optional(),
		model: modelRefField.optional(),
		thinking: thinkingField.optional(),
		cadence: cadence.optional(),
	});
	return obj({
		enabled: z.boolean().optional(),
		main: obj({
			enabled: z.boolean().optional(),
			model: modelRefField.optional(),
			thinking: thinkingField.optional(),
		}).optional(),
		agentEndTimeoutMs: positiveMs(1000).optional(),
		severityThreshold: z.enum(["concern", "blocker"], { error: "must be concern or blocker" }).optional(),
		// 1 (pi-subagents allows it): a finding stops being pushed after the first boundary review that raises it.
		stalemateRepeats: z
			.int()
			.min(1, { error: "must be at least 1" })
			.max(20, { error: "must be at most 20" })
			.optional(),
		maxWarnings: z
			.union([z.null(), z.int().min(0)], { error: "must be null (no cap) or a whole number of at least 0" })
			.optional(),
		fallbackModels: z.array(modelRefField).max(8, { error: "at most 8 fallback models" }).optional(),
		scope: obj({ enabled: z.boolean().optional() }).optional(),
		guidance: obj({ watchdogMd: z.boolean().optional() }).optional(),
		cadence: cadence.optional(),
		lsp: obj({
			enabled: z.boolean().optional(),
			timeoutMs: positiveMs(500).optional(),
			maxFiles: z.int().min(1).max(500).optional(),
			idleMs: positiveMs(1000).optional(),
			serverMemoryMb: z
				.union([z.literal(0), z.int().min(256).max(65_536)], {
					error: "must be 0 (Node's default) or a whole number of MB from 256 to 65536",
				})
				.optional(),
			/** pi-subagents' key, accepted and announced as not supported (see UNSUPPORTED_KEYS). */
			maxDiagnostics: z.int().min(0).optional(),
		}).optional(),
		loops: obj({
			enabled: z.boolean().optional(),
			stopRun: z.boolean().optional(),
			window: z.int().min(5).max(1000).optional(),
			repeats: z.int().min(2).optional(),
			targetHits: z.int().min(2).optional(),
			readOnlyTargetHits: z.int().min(2).optional(),
			dominantShare: z.number().gt(0).max(1).optional(),
			rereadFactor: z.number().min(1).optional(),
			cycleRepeats: z.int().min(2).optional(),
			staleCalls: z.int().min(2).optional(),
			checkRepeats: z.int().min(2).optional(),
			restateRepeats: z.int().min(2).optional(),
			errorRepeats: z.int().min(2).optional(),
			failRepeats: z.int().min(2).optional(),
			sameAnswers: z.int().min(2).optional(),
			compactions: z.int().min(2).optional(),
			maxWaitMs: positiveMs(1000).optional(),
		}).optional(),
		clarification: z.boolean().optional(),
		idle: obj({
			main: z.boolean().optional(),
			children: z.boolean().optional(),
			policy: z.enum(["off", "keep", "handsoff"], { error: "must be off, keep or handsoff" }).optional(),
			cooldownMs: positiveMs(0).optional(),
			maxNudges: z.int().min(0).optional(),
			stallMs: positiveMs(0).optional(),
			model: modelRefField.optional(),
		}).optional(),
		rotate: obj({
			enabled: z.boolean().optional(),
			models: z.array(modelRefField).optional(),
			cooldownMs: positiveMs(0).optional(),
		}).optional(),
		children: obj({
			enabled: z.boolean().optional(),
			model: modelRefField.optional(),
			thinking: thinkingField.optional(),
			cadence: cadence.optional(),
			overrides: z.record(z.string(), childRole).optional(),
			concurrency: z.int().min(1).max(32).optional(),
			timeoutMs: positiveMs(1000)
				.max(MAX_CHILD_TIMEOUT_MS, { error: `must be at most ${MAX_CHILD_TIMEOUT_TEXT}` })
				.optional(),
			maxBackground: z
				.int({ error: "must be a whole number" })
				.min(1, { error: "must be at least 1" })
				.max(32, { error: "must be at most 32" })
				.optional(),
			maxDepth: z
				.int({ error: "must be a whole number" })
				.min(1, { error: "must be at least 1 (the main session's own children)" })
				.max(MAX_TREE_DEPTH, { error: `must be at most ${MAX_TREE_DEPTH}` })
				.optional(),
			/** pi-subagents' key, accepted and announced as not supported (see UNSUPPORTED_KEYS). */
			watchdogTailTimeoutMs: z.int().min(1).optional(),
		}).optional(),
		rules: obj({
			action: z.enum(["warn", "block"], { error: "must be warn or block" }).optional(),
			roleModels: z
				.record(
					z.string(),
					obj(
						{
							allow: globList.optional(),
							deny: globList.optional(),
							note: z
								.string({ error: "must be text" })
								.max(1000, { error: "must be at most 1000 characters" })
								.optional(),
						},
						{ error: 'must be an object with allow, deny and note, e.g. { "deny": ["openai/*"], "note": "why" }' },
					),
					{ error: 'must be an object keyed by agent role, e.g. { "worker": { "deny": ["openai/*"] } }' },
				)
				.optional(),
		}).optional(),
		permissions: obj({
			timeoutMs: positiveMs(1000).optional(),
			model: modelRefField.optional(),
			threshold: z
				.number({ error: "must be a number" })
				.min(0.5, { error: "must be at least 0.5" })
				.max(0.99, { error: "must be at most 0.99" })
				.optional(),
		}).optional(),
		headless: obj({ strict: z.boolean().optional() }).optional(),
		fleet: obj({
			stallMs: positiveMs(1000).optional(),
			dormantMs: positiveMs(60_000).optional(),
			model: modelRefField.optional(),
			notify: z
				.union([z.literal(false), z.string().min(1).max(2000)], { error: "must be false or a command line" })
				.optional(),
			cooldownMs: positiveMs(0).optional(),
			maxNudges: z.int().min(0).max(100).optional(),
		}).optional(),
		history: obj({
			// Below 64 KiB the log would rotate every few reviews and keep next to nothing.
			maxBytes: z
				.int({ error: "must be a whole number of bytes" })
				.min(65_536, { error: "must be at least 65536 bytes (64 KiB)" })
				.max(1_073_741_824, { error: "must be at most 1073741824 bytes (1 GiB)" })
				.optional(),
		}).optional(),
	});
}

export const strictLayerSchema = layerSchema(z.strictObject);
let stripping: typeof strictLayerSchema | undefined;
/** The same schema dropping unknown keys: needed only for a layer that has some, so built on first use. */
export const layerSchemaStripping = (): typeof strictLayerSchema =>
	(stripping ??= layerSchema(z.object as unknown as ObjectMaker) as unknown as typeof strictLayerSchema);

/** One source's view of the settings: every key optional. */
export type SettingsLayer = z.infer<typeof strictLayerSchema>;
export type ModelSetting = string; // "inherit" or provider/id
export type { ThinkingSetting };
export type CadenceSetting = number | false;

export interface ChildRoleSettings {
	enabled?: boolean;
	model?: ModelSetting;
	thinking?: ThinkingSetting;
	cadence?: { everyNTools?: CadenceSetting };
}

/** The effective settings: every key has a value. */
export interface WatchdogSettings {
	enabled: boolean;
	/** `enabled`: the main session's own switch under the master `enabled` (absent: on). */
	main: { enabled?: boolean; model: ModelSetting; thinking: ThinkingSetting };
	agentEndTimeoutMs: number;
	severityThreshold: "concern" | "blocker";
	stalemateRepeats: number;
	/** Findings sent to the agent per user prompt; null: no cap. Past it they are shown to the user only. */
	maxWarnings: number | null;
	/** Reviewer models tried in order when the reviewer fails before any tool work, within the same deadline. */
	fallbackModels: string[];
	scope: { enabled: boolean };
	guidance: { watchdogMd: boolean };
	cadence: { everyNTools: CadenceSetting };
	lsp: { enabled: boolean; timeoutMs: number; maxFiles: number; idleMs: number; serverMemoryMb: number };
	loops: { enabled: boolean; stopRun: boolean } & LoopThresholds;
	clarification: boolean;
	idle: {
		main: boolean;
		children: boolean;
		policy: "off" | "keep" | "handsoff";
		cooldownMs: number;
		maxNudges: number;
		stallMs: number;
		model: ModelSetting;
	};
	rotate: { enabled: boolean; models: string[]; cooldownMs: number };
	children: {
		enabled: boolean;
		model: ModelSetting;
		thinking: ThinkingSetting;
		cadence: { everyNTools: CadenceSetting };
		overrides: Record<string, ChildRoleSettings>;
		concurrency: number;
		timeoutMs: number;
		/** Background runs of this agent folder running at once; a launch past it is refused. */
		maxBackground: number;
		/**
		 * How deep children may nest, the main session being 0: at 2 its children may launch
		 * children of their own, and those may not. An agent file's `maxDepth` can only lower it.
		 */
		maxDepth: number;
	};
	rules: { action: "warn" | "block"; roleModels: Record<string, { allow?: string[]; deny?: string[]; note?: string }> };
	/** The permission arbiter's deadline; the rules themselves live in `<agentDir>/extensions/subagent/config.json`. */
	permissions: {
		timeoutMs: number;
		/** The arbiter's model: `inherit` (the child watchdog's chat model), a chat model, or a classifier model. */
		model: ModelSetting;
		/** A classifier arbiter approves only with p(approve) at or above this. */
		threshold: number;
	};
	/** Print and RPC mode: `strict` makes Pi exit non-zero on an open blocker (also `--watchdog-strict`). */
	headless: { strict: boolean };
	history: { maxBytes: number };
	/** The machine-wide fleet view (`pi-watchdog fleet`, `/subagents-watchdog fleet`); see docs/fleet.md. */
	fleet: {
		/** A stopped session quiet this long with its work unfinished is idle (default 3 minutes). */
		stallMs: number;
		/** A session quiet this long is dormant: listed, never judged or nudged (default 24 hours). */
		dormantMs: number;
		/** The model that judges a pass's idle sessions in one call (NUDGE or SKIP); inherit: the watchdog's. */
		model: ModelSetting;
		/** A command that gets each new attention row as one JSON line on stdin; false: none. */
		notify: string | false;
		/** The least time between two nudges of one session, across passes (default 10 minutes). */
		cooldownMs: number;
		/** Nudges of one session without progress before the fleet stops nudging it (default 3). */
		maxNudges: number;
	};
}

export const DEFAULT_SETTINGS: WatchdogSettings = {
	enabled: false,
	main: { model: "inherit", thinking: "inherit" },
	agentEndTimeoutMs: 60_000,
	severityThreshold: "concern",
	stalemateRepeats: 3,
	maxWarnings: null,
	fallbackModels: [],
	scope: { enabled: true },
	guidance: { watchdogMd: true },
	cadence: { everyNTools: 0 },
	lsp: { enabled: true, timeoutMs: 10_000, maxFiles: 20, idleMs: 300_000, serverMemoryMb: SERVER_MEMORY_MB },
	loops: { enabled: true, stopRun: false, ...DEFAULT_THRESHOLDS },
	clarification: false,
	idle: {
		main: false,
		children: true,
		policy: "keep",
		cooldownMs: 120_000,
		maxNudges: 3,
		stallMs: 60_000,
		model: "inherit",
	},
	rotate: { enabled: false, models: [], cooldownMs: 600_000 },
	children: {
		enabled: false,
		model: "inherit",
		thinking: "inherit",
		cadence: { everyNTools: 0 },
		overrides: {},
		concurrency: 4,
		timeoutMs: 1_800_000,
		maxBackground: 4,
		maxDepth: 2,
	},
	rules: { action: "warn", roleModels: {} },
	permissions: { timeoutMs: 20_000, model: "inherit", threshold: 0.8 },
	headless: { strict: false },
	history: { maxBytes: 10_485_760 },
	fleet: {
		stallMs: 180_000,
		dormantMs: 86_400_000,
		model: "inherit",
		notify: false,
		cooldownMs: 600_000,
		maxNudges: 3,
	},
};

/** Paths whose values are open-ended maps: their children are keyed by role, not by schema. */
export const MAP_PATHS = new Set(["children.overrides", "rules.roleModels"]);

/** pi-subagents' keys accepted (so the file still loads) that do nothing here; each is announced once per session. */
export const UNSUPPORTED_KEYS: Record<string, string> = {
	"children.watchdogTailTimeoutMs":
		"a child's watchdog here finishes inside the child's own run, so there is no tail to wait for",
	"lsp.maxDiagnostics":
		"the LSP pre-pass reports every new error and warning of the files it checks (lsp.maxFiles bounds it)",
};
