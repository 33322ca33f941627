// The effective settings' shape (every key has a value) and the defaults that fill what no layer sets. The
// layers' shape, with every key optional, is the schema (schema.ts).
import { DEFAULT_THRESHOLDS, type LoopThresholds } from "../loops/index.ts";
import { SERVER_MEMORY_MB } from "../lsp/index.ts";
import type { ThinkingSetting } from "../models/index.ts";

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
