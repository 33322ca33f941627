// Settings as nested objects, reached by dotted key paths (`lsp.enabled`): walking the leaves,
// reading and writing one key. Shared by the resolver and the tightening rules, so neither
// imports the other for them.
import { isPlainObject } from "../util/index.ts";

export function forEachLeaf(obj: unknown, prefix: string, fn: (path: string, value: unknown) => void): void {
	if (!isPlainObject(obj)) return;
	for (const [k, v] of Object.entries(obj)) {
		if (v === undefined) continue;
		const path = prefix ? `${prefix}.${k}` : k;
		if (isPlainObject(v)) forEachLeaf(v, path, fn);
		else fn(path, v);
	}
}

export function getPath(obj: unknown, path: string): unknown {
	let cur: unknown = obj;
	for (const part of path.split(".")) {
		if (!isPlainObject(cur)) return undefined;
		cur = cur[part];
	}
	return cur;
}

export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
	const parts = path.split(".");
	let cur = obj;
	for (const part of parts.slice(0, -1)) {
		if (!isPlainObject(cur[part])) cur[part] = {};
		cur = cur[part] as Record<string, unknown>;
	}
	const last = parts[parts.length - 1];
	if (value === undefined) delete cur[last];
	else cur[last] = value;
}
