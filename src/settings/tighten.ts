// A project's settings may tighten what you set, never loosen it (pure). Each value of the
// project's layer is compared with the effective value below it (the defaults and your own
// settings): it is taken when it watches at least as closely, refused (and listed in status)
// when it would watch less closely or choose a model for you. Deny lists are added to yours.
import { THINKING_LEVELS } from "../models/index.ts";
import { forEachLeaf, getPath, setPath } from "./key-paths.ts";
import type { WatchdogSettings } from "./defaults.ts";
import type { SettingsLayer } from "./schema.ts";

export interface RefusedValue {
	/** Dotted key below `subagents.watchdog`. */
	key: string;
	value: unknown;
	why: string;
}

// Where `true` watches more closely.
const SWITCHES = new Set([
	"enabled",
	"main.enabled",
	"children.enabled",
	"lsp.enabled",
	"loops.enabled",
	"loops.stopRun",
	"scope.enabled",
	"guidance.watchdogMd",
	"clarification",
	"idle.main",
	"idle.children",
	"headless.strict",
]);
const MODELS_ARE_YOURS = "a project may not choose the models that watch it; set it in your own settings";
// Ordered from the least to the most oversight.
const ORDERED: Record<string, readonly string[]> = {
	severityThreshold: ["blocker", "concern"],
	"idle.policy": ["off", "handsoff", "keep"],
	"rules.action": ["warn", "block"],
};
// Thresholds where a smaller number notices sooner.
const LOWER = new Set([
	"stalemateRepeats",
	"loops.repeats",
	"loops.targetHits",
	"loops.readOnlyTargetHits",
	"loops.staleCalls",
	"loops.checkRepeats",
	"loops.dominantShare",
	"loops.rereadFactor",
	"loops.cycleRepeats",
	"loops.restateRepeats",
	"loops.errorRepeats",
	"loops.failRepeats",
	"loops.sameAnswers",
	"loops.compactions",
	"loops.maxWaitMs",
	"idle.cooldownMs",
	"idle.stallMs",
]);
// Where a larger number looks further or waits longer for an answer.
const HIGHER = new Set([
	"loops.window",
	"lsp.maxFiles",
	"idle.maxNudges",
	"agentEndTimeoutMs",
	"lsp.timeoutMs",
	// A lower heap limit could make tsserver run out of memory, and the type check stop.
	"lsp.serverMemoryMb",
	"permissions.threshold",
]);
// Housekeeping that changes how, not how closely, the watchdog watches.
const NEUTRAL = new Set([
	"lsp.idleMs",
	"children.concurrency",
	"children.timeoutMs",
	"children.maxBackground",
	"permissions.timeoutMs",
	"history.maxBytes",
]);

/** A number for "higher": a heap limit of 0 is Node's own default, above any limit one sets. */
function higherValue(key: string, value: unknown): number {
	return key === "lsp.serverMemoryMb" && Number(value) === 0 ? Number.POSITIVE_INFINITY : Number(value);
}

export function tightenOnly(
	below: WatchdogSettings,
	layer: SettingsLayer,
): { layer: SettingsLayer; refused: RefusedValue[] } {
	const kept: Record<string, unknown> = {};
	const refused: RefusedValue[] = [];
	forEachLeaf(layer, "", (key, value) => {
		const judged = judge(below, key, value);
		if (judged.take) setPath(kept, key, judged.value);
		else refused.push({ key, value, why: judged.why });
	});
	return { layer: kept as SettingsLayer, refused };
}

type Judged = { take: true; value: unknown } | { take: false; why: string };

function judge(below: WatchdogSettings, key: string, value: unknown): Judged {
	const was = getPath(below, key);
	const take = { take: true as const, value };
	if (JSON.stringify(was) === JSON.stringify(value) || NEUTRAL.has(key)) return take;
	const role = /^children\.overrides\.([^.]+)\.(.+)$/.exec(key);
	if (role) return judgeRole(below, role[1], role[2], value);
	const rule = /^rules\.roleModels\.([^.]+)\.(allow|deny|note)$/.exec(key);
	if (rule) return judgeRule(below.rules.roleModels[rule[1]], rule[2] as keyof RoleRule, value);
	if (key.startsWith("fleet.")) return refuse("the fleet view is machine-wide: set it in your own settings");
	if (SWITCHES.has(key)) return value === true ? take : refuse("would turn off what your settings leave on");
	const change = `${String(was)} → ${String(value)}`;
	const order = ORDERED[key];
	const weaker = `would weaken ${String(was)} to ${String(value)}`;
	if (order) return order.indexOf(String(value)) >= order.indexOf(String(was)) ? take : refuse(weaker);
	if (key.endsWith("cadence.everyNTools")) return cadence(was, value);
	// A shallower tree is a tighter one: a project may lower the depth, never raise it.
	if (key === "children.maxDepth")
		return Number(value) <= Number(was) ? take : refuse(`would let children nest deeper (${change})`);
	if (LOWER.has(key)) return Number(value) <= Number(was) ? take : refuse(`would notice later (${change})`);
	const shorter = `would look less far or give up sooner (${change})`;
	if (HIGHER.has(key)) return higherValue(key, value) >= higherValue(key, was) ? take : refuse(shorter);
	if (key.endsWith("thinking")) return thinking(was, value);
	// Models (the reviewers', the nudge writer's, rotation) are yours to choose.
	return refuse(MODELS_ARE_YOURS);
}

function judgeRole(below: WatchdogSettings, role: string, rest: string, value: unknown): Judged {
	const own = below.children.overrides[role];
	const take = { take: true as const, value };
	if (rest === "enabled") {
		const off = (own?.enabled ?? below.children.enabled) === false;
		return value === true || off ? take : refuse("would turn this role's watchdog off");
	}
	if (rest === "cadence.everyNTools")
		return cadence(own?.cadence?.everyNTools ?? below.children.cadence.everyNTools, value);
	if (rest === "thinking") return thinking(own?.thinking ?? below.children.thinking, value);
	return (own?.model ?? below.children.model) === value ? take : refuse(MODELS_ARE_YOURS);
}

type RoleRule = { allow?: string[]; deny?: string[]; note?: string };

function judgeRule(was: RoleRule | undefined, field: keyof RoleRule, value: unknown): Judged {
	// More denied models is always tighter: the project's patterns join yours.
	if (field === "deny") return { take: true, value: [...new Set([...(was?.deny ?? []), ...(value as string[])])] };
	if (field === "note")
		return was?.note === undefined ? { take: true, value } : refuse("your own note for this role stays");
	// An allow list where you have none narrows the models; one of your own may only be narrowed.
	const list = value as string[];
	if (!was?.allow || list.every((p) => was.allow?.includes(p))) return { take: true, value };
	return refuse(
		`would allow ${list.filter((p) => !was.allow?.includes(p)).join(", ")}, which your allow list does not`,
	);
}

function cadence(was: unknown, value: unknown): Judged {
	const every = (v: unknown) => (typeof v === "number" && v > 0 ? v : Number.POSITIVE_INFINITY);
	if (every(value) <= every(was)) return { take: true, value };
	const off = every(value) === Number.POSITIVE_INFINITY;
	return refuse(off ? "would turn cadence reviews off" : "would make cadence reviews rarer");
}

function thinking(was: unknown, value: unknown): Judged {
	const rank = (v: unknown) => THINKING_LEVELS.indexOf(v as never);
	if (value !== "inherit" && was !== "inherit" && rank(value) >= rank(was)) return { take: true, value };
	return refuse("would lower or unfix the reviewer's thinking");
}

/** What a project's settings may do with `key` (dotted; `<role>` for a role), in words, for the settings reference. */
export function projectRule(key: string): string {
	if (NEUTRAL.has(key)) return "any value";
	const field = /^children\.overrides\.<role>\.(.+)$/.exec(key)?.[1] ?? key;
	const rule = /^rules\.roleModels\.<role>\.(allow|deny|note)$/.exec(key)?.[1];
	if (rule === "deny") return "added to yours";
	if (rule === "allow") return "only narrower than yours";
	if (rule === "note") return "only where you have none";
	if (SWITCHES.has(key) || field === "enabled") return "only `true`";
	const order = ORDERED[key];
	if (order) return `only towards \`${order.at(-1)}\``;
	if (field.endsWith("cadence.everyNTools")) return "only more often";
	if (LOWER.has(key)) return "only lower";
	if (HIGHER.has(key)) return "only higher";
	if (field.endsWith("thinking")) return "only higher";
	return "no";
}

function refuse(why: string): Judged {
	return { take: false, why };
}
