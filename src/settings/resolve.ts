// Pure resolution of the settings layers into effective settings with provenance.
// No file access here: the caller hands in what each source contained.
import type { z } from "zod";
import { isBareModelId, parseModelRef, splitBareId } from "../models/index.ts";
import { DEFAULT_SETTINGS, type WatchdogSettings } from "./defaults.ts";
import { layerSchemaFor, type SettingsLayer, UNSUPPORTED_KEYS } from "./schema.ts";
import { isPlainObject } from "../util/index.ts";
import { forEachLeaf, getPath, setPath } from "./key-paths.ts";
import { tightenOnly } from "./tighten.ts";

export { forEachLeaf, getPath, setPath };

export type SourceName = "default" | "user" | "project" | "session";

export interface LayerInput {
	source: Exclude<SourceName, "default">;
	/** Where it came from, for messages (a file path, or "session overrides"). */
	origin: string;
	/** The whole settings document (a file's parsed JSON), or the watchdog object for the session layer. */
	document?: unknown;
	/** true when `document` is already the `subagents.watchdog` object. */
	isWatchdogObject?: boolean;
	/** A problem reading or parsing the source; the layer then contributes nothing. */
	readError?: string;
	/** The source exists but was deliberately not read (e.g. untrusted project). */
	ignoredReason?: string;
	/** A word on where the file was found, for status. */
	note?: string;
	/** The project's layer: its values may only tighten what the layers before it set. */
	tightenOnly?: boolean;
}

export interface SettingsProblem {
	source: SourceName;
	origin: string;
	/** Dotted key path below `subagents.watchdog`, when the problem is about one key. */
	key?: string;
	message: string;
}

export interface ResolvedSettings {
	settings: WatchdogSettings;
	/** Dotted key path → the source its effective value came from. */
	sources: Record<string, SourceName>;
	errors: SettingsProblem[];
	warnings: SettingsProblem[];
	/** Sources present but not read, with why. */
	ignored: SettingsProblem[];
	/** Values a project set that would have loosened yours, with why (see tighten.ts). */
	refused?: SettingsProblem[];
	/** Words on the files read (e.g. a project file found above the working folder). */
	notes?: SettingsProblem[];
	/** pi-subagents' keys that load but do nothing here (announced once per session, listed in status). */
	unsupported: SettingsProblem[];
	/** Whether the main session's watchdog is on: `settings.enabled`, `settings.main.enabled` and no errors. */
	enabled: boolean;
	/** Keys no file names, set by another key's value (a model without a level: thinking off), with why. */
	implied?: Record<string, string>;
	/**
	 * pi-subagents' child policy keys (`subagents.disableBuiltins`, `.agentOverrides`,
	 * `.modelScope`) of each file read, raw: the launcher checks and applies them.
	 */
	childPolicy?: ChildPolicyLayer[];
}

/** What one settings file holds under `subagents` besides `watchdog` (raw; src/children/agent-policy.ts reads it). */
export interface ChildPolicyLayer {
	source: "user" | "project";
	/** The file. */
	origin: string;
	disableBuiltins?: unknown;
	agentOverrides?: unknown;
	modelScope?: unknown;
}

const CHILD_POLICY_KEYS = ["disableBuiltins", "agentOverrides", "modelScope"] as const;

const ROOT = "subagents.watchdog";

export function resolveSettings(layers: LayerInput[]): ResolvedSettings {
	const settings = structuredClone(DEFAULT_SETTINGS);
	const sources: Record<string, SourceName> = {};
	forEachLeaf(DEFAULT_SETTINGS, "", (path) => (sources[path] = "default"));
	const errors: SettingsProblem[] = [];
	const warnings: SettingsProblem[] = [];
	const ignored: SettingsProblem[] = [];
	const refused: SettingsProblem[] = [];
	const notes: SettingsProblem[] = [];
	const unsupported: SettingsProblem[] = [];
	const childPolicy: ChildPolicyLayer[] = [];
	const implied: Record<string, string> = {};

	for (const layer of layers) {
		const at = { source: layer.source, origin: layer.origin };
		if (layer.note) notes.push({ ...at, message: layer.note });
		if (layer.ignoredReason) {
			ignored.push({ ...at, message: layer.ignoredReason });
			continue;
		}
		if (layer.readError) {
			errors.push({ ...at, message: layer.readError });
			continue;
		}
		const policy = layer.source !== "session" && !layer.isWatchdogObject ? childPolicyOf(layer.document) : undefined;
		if (policy) childPolicy.push({ source: layer.source as "user" | "project", origin: layer.origin, ...policy });
		if (layer.source !== "session" && !layer.isWatchdogObject && maxDepthSet(layer.document)) {
			const message =
				"subagents.maxSubagentDepth is not read here: children nest as deep as " +
				"subagents.watchdog.children.maxDepth allows (default 2)";
			unsupported.push({ ...at, key: "subagents.maxSubagentDepth", message });
		}
		const extracted = layer.isWatchdogObject
			? { ok: true as const, value: layer.document }
			: extractWatchdog(layer.document);
		if (!extracted.ok) {
			errors.push({ ...at, message: extracted.error });
			continue;
		}
		if (extracted.value === undefined) continue;
		const checked = validateLayer(extracted.value);
		for (const w of checked.warnings) warnings.push({ ...at, ...w });
		if (checked.errors.length > 0) {
			for (const e of checked.errors) errors.push({ ...at, ...e });
			continue;
		}
		const filled = new Map<string, string>();
		let normalized = normalizeLayer(checked.layer, (w) => warnings.push({ ...at, ...w }), filled);
		for (const [key, why] of Object.entries(UNSUPPORTED_KEYS)) {
			if (getPath(normalized, key) === undefined) continue;
			unsupported.push({ ...at, key, message: `${ROOT}.${key} is not supported: ${why}` });
			setPath(normalized as Record<string, unknown>, key, undefined);
		}
		if (layer.tightenOnly) {
			const judged = tightenOnly(settings, normalized);
			normalized = judged.layer;
			for (const r of judged.refused) {
				refused.push({ ...at, key: r.key, message: `${ROOT}.${r.key} = ${JSON.stringify(r.value)} refused: ${r.why}` });
			}
		}
		forEachLeaf(normalized, "", (path, value) => {
			setPath(settings as unknown as Record<string, unknown>, path, value);
			sources[path] = layer.source;
			const why = filled.get(path);
			if (why) implied[path] = why;
			else delete implied[path];
		});
	}

	// `enabled` is the master switch; `main.enabled` (by default the same) the main session's own.
	const enabled = settings.enabled && settings.main.enabled !== false && errors.length === 0;
	const policy = childPolicy.length ? { childPolicy } : {};
	const also = Object.keys(implied).length ? { implied } : {};
	return { settings, sources, errors, warnings, ignored, unsupported, refused, notes, enabled, ...policy, ...also };
}

function childPolicyOf(doc: unknown): Omit<ChildPolicyLayer, "source" | "origin"> | undefined {
	const subagents = isPlainObject(doc) ? doc.subagents : undefined;
	if (!isPlainObject(subagents)) return undefined;
	const found = CHILD_POLICY_KEYS.filter((k) => subagents[k] !== undefined);
	return found.length ? Object.fromEntries(found.map((k) => [k, subagents[k]])) : undefined;
}

function maxDepthSet(doc: unknown): boolean {
	return isPlainObject(doc) && isPlainObject(doc.subagents) && doc.subagents.maxSubagentDepth !== undefined;
}

function extractWatchdog(doc: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
	if (doc === undefined) return { ok: true, value: undefined };
	if (!isPlainObject(doc)) return { ok: false, error: `the file must hold a JSON object, not ${describe(doc)}` };
	const subagents = doc.subagents;
	if (subagents === undefined) return { ok: true, value: undefined };
	if (!isPlainObject(subagents))
		return { ok: false, error: `"subagents" must be an object, not ${describe(subagents)}` };
	const watchdog = subagents.watchdog;
	if (watchdog === undefined) return { ok: true, value: undefined };
	if (!isPlainObject(watchdog)) return { ok: false, error: `"${ROOT}" must be an object, not ${describe(watchdog)}` };
	return { ok: true, value: watchdog };
}

interface KeyProblem {
	key?: string;
	message: string;
}

/** Validates one layer: unknown keys are warnings, everything else an error. */
export function validateLayer(value: unknown): { layer: SettingsLayer; errors: KeyProblem[]; warnings: KeyProblem[] } {
	const strict = layerSchemaFor(value, "strict").safeParse(value);
	if (strict.success) return { layer: strict.data, errors: [], warnings: [] };
	const errors: KeyProblem[] = [];
	const warnings: KeyProblem[] = [];
	for (const issue of strict.error.issues) {
		const base = issue.path.map(String).join(".");
		if (issue.code === "unrecognized_keys") {
			for (const k of (issue as z.core.$ZodIssueUnrecognizedKeys).keys) {
				const key = base ? `${base}.${k}` : k;
				warnings.push({ key, message: `unknown key ${ROOT}.${key} is ignored` });
			}
		} else {
			errors.push({ key: base || undefined, message: `${base ? `${ROOT}.${base}` : ROOT}: ${issue.message}` });
		}
	}
	if (errors.length > 0) return { layer: {}, errors, warnings };
	const stripped = layerSchemaFor(value, "strip").safeParse(value);
	return { layer: stripped.success ? (stripped.data as SettingsLayer) : {}, errors, warnings };
}

/**
 * Makes a layer's meaning explicit before merging:
 * - `main.enabled` alone also sets `enabled` (as it always has); beside `enabled` it is the main
 *   session's own switch, so `enabled: true` with `main.enabled: false` watches children only
 *   (until a layer sets `main.enabled` again; `/subagents-watchdog on` removes it from the file);
 * - a model carries its thinking level: `provider/id:high` sets thinking high, a model without
 *   a level runs with thinking off, and `inherit` also inherits the session's thinking level.
 */
function normalizeLayer(
	layer: SettingsLayer,
	warn: (p: KeyProblem) => void,
	filled: Map<string, string>,
): SettingsLayer {
	const out = structuredClone(layer);
	if (out.main?.enabled !== undefined) {
		if (out.enabled === undefined) out.enabled = out.main.enabled;
		else if (!out.enabled && out.main.enabled)
			warn({
				key: "main.enabled",
				message: `${ROOT}.enabled is false, which turns every watchdog off; main.enabled: true has no effect`,
			});
	}
	const pairs: Array<[string, { model?: string; thinking?: string }]> = [];
	if (out.main) pairs.push(["main", out.main]);
	if (out.children) pairs.push(["children", out.children]);
	for (const [role, pair] of Object.entries(out.children?.overrides ?? {}))
		pairs.push([`children.overrides.${role}`, pair]);
	for (const [prefix, pair] of pairs) {
		const named = pair.thinking !== undefined;
		const model = pair.model;
		normalizeModelPair(pair);
		if (named || pair.thinking === undefined) continue;
		const why = model === "inherit" || /:[a-z]+$/.test(model ?? "") ? "" : ", which names no thinking level";
		filled.set(`${prefix}.thinking`, `from ${prefix}.model${why}`);
	}
	return out;
}

function normalizeModelPair(pair: { model?: string; thinking?: string }): void {
	if (pair.model === undefined) return;
	if (pair.model === "inherit") {
		pair.thinking ??= "inherit";
		return;
	}
	if (isBareModelId(pair.model)) {
		// Placed at a provider when the session reads the settings (it knows Pi's models).
		const bare = splitBareId(pair.model);
		pair.model = bare.id;
		pair.thinking ??= bare.thinking ?? "off";
		return;
	}
	const parsed = parseModelRef(pair.model);
	if (!parsed.ok) return;
	pair.model = `${parsed.ref.provider}/${parsed.ref.id}`;
	pair.thinking ??= parsed.ref.thinking ?? "off";
}

// ---------- small object helpers ----------

function describe(v: unknown): string {
	if (v === null) return "null";
	if (Array.isArray(v)) return "an array";
	return `a ${typeof v}`;
}

/** Calls `fn` for each leaf (primitive or array) of a plain object tree. */
/** How to turn the watchdog on, given where the `false` comes from. */
export function howToTurnOn(resolved: ResolvedSettings): string {
	switch (resolved.sources.enabled) {
		case "session":
			return "turn it on with /subagents-watchdog session on";
		case "project":
			return "the project's settings turn it off; change them, or use /subagents-watchdog session on";
		default:
			return "turn it on with /subagents-watchdog on";
	}
}
