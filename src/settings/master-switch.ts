// Whether a settings document leaves every watchdog off for certain, read without the schema, so
// that a start with the watchdog off need not load the schema (or the rest of the watchdog) at
// all. It answers `false` whenever it is not sure: the full resolution (resolve.ts) then decides,
// and reports whatever is wrong with the file.
import { isPlainObject } from "../util/index.ts";

/** The keys of `subagents.watchdog` (schema.ts; a unit test keeps them alike). A misspelt one is an error to show. */
export const WATCHDOG_KEYS: ReadonlySet<string> = new Set([
	"enabled",
	"main",
	"agentEndTimeoutMs",
	"severityThreshold",
	"stalemateRepeats",
	"maxWarnings",
	"fallbackModels",
	"scope",
	"guidance",
	"cadence",
	"lsp",
	"loops",
	"clarification",
	"idle",
	"rotate",
	"children",
	"rules",
	"permissions",
	"headless",
	"fleet",
	"history",
]);
const MAIN_KEYS: ReadonlySet<string> = new Set(["enabled", "model", "thinking"]);

/**
 * True when `document` (a parsed settings file, `undefined` when there is none) turns the master
 * switch off with nothing to tell the user at start: `enabled` false or left at its default (false),
 * `main.enabled` (which alone also sets `enabled`) not true, no misspelt key beside them, and no
 * `subagents.maxSubagentDepth` (announced as not read here). Values under the other keys do nothing
 * while the watchdog is off; they are checked when it loads.
 */
export function masterSwitchOff(document: unknown): boolean {
	if (document === undefined) return true;
	if (!isPlainObject(document)) return false;
	const subagents = document.subagents;
	if (subagents === undefined) return true;
	if (!isPlainObject(subagents) || subagents.maxSubagentDepth !== undefined) return false;
	const watchdog = subagents.watchdog;
	if (watchdog === undefined) return true;
	if (!isPlainObject(watchdog) || !Object.keys(watchdog).every((key) => WATCHDOG_KEYS.has(key))) return false;
	const main = watchdog.main;
	if (main !== undefined && !isPlainObject(main)) return false;
	if (main && !Object.keys(main).every((key) => MAIN_KEYS.has(key))) return false;
	const mainEnabled = main?.enabled;
	if (mainEnabled !== undefined && mainEnabled !== false) return false;
	return watchdog.enabled === undefined || watchdog.enabled === false;
}
