// Bare model ids in settings (pi-subagents' `"model": "claude-opus-4-8"`): placed at the one
// provider Pi has that id from, once the session can ask Pi's models. An id several providers
// offer, or none, is a settings error naming the candidates, as a malformed value would be.
import { findBareId, isBareModelId, type ModelLookup } from "../models/index.ts";
import { getPath, type ResolvedSettings, setPath, type SourceName } from "./resolve.ts";

/** The settings keys that hold one model, or a list of them. */
function modelKeys(resolved: ResolvedSettings): string[] {
	const s = resolved.settings;
	const keys = ["main.model", "children.model", "idle.model"];
	keys.push(...Object.keys(s.children.overrides).map((role) => `children.overrides.${role}.model`));
	keys.push(
		...s.rotate.models.map((_, i) => `rotate.models.${i}`),
		...s.fallbackModels.map((_, i) => `fallbackModels.${i}`),
	);
	return keys;
}

/** The settings with every bare id placed; unchanged (the same object) when there is none. */
export function placeBareModels(
	resolved: ResolvedSettings,
	lookup: ModelLookup,
	originOf: (source: SourceName) => string,
): ResolvedSettings {
	const bare = modelKeys(resolved).filter((key) => {
		const value = valueAt(resolved, key);
		return typeof value === "string" && isBareModelId(value);
	});
	if (!bare.length) return resolved;
	const settings = structuredClone(resolved.settings);
	const errors = [...resolved.errors];
	for (const key of bare) {
		const text = valueAt(resolved, key) as string;
		const found = findBareId(lookup, text);
		const source = resolved.sources[key] ?? resolved.sources[key.replace(/\.\d+$/, "")] ?? "default";
		if ("error" in found) {
			const message = `subagents.watchdog.${key}: ${found.error}`;
			errors.push({ source, origin: originOf(source), key, message });
			continue;
		}
		writeAt(settings as unknown as Record<string, unknown>, key, `${found.model.provider}/${found.model.id}`);
	}
	const enabled = resolved.enabled && errors.length === 0;
	return { ...resolved, settings, errors, enabled };
}

function valueAt(resolved: ResolvedSettings, key: string): unknown {
	const list = /^(.*)\.(\d+)$/.exec(key);
	if (list) return (getPath(resolved.settings, list[1]) as unknown[] | undefined)?.[Number(list[2])];
	return getPath(resolved.settings, key);
}

function writeAt(settings: Record<string, unknown>, key: string, value: string): void {
	const list = /^(.*)\.(\d+)$/.exec(key);
	if (list) (getPath(settings, list[1]) as unknown[])[Number(list[2])] = value;
	else setPath(settings, key, value);
}
