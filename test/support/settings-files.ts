// Writing Pi settings files for tests, the way a user would leave them on disk.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const CONFIG_DIR = ".pi";

export function writeJson(path: string, value: unknown): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, typeof value === "string" ? value : `${JSON.stringify(value, null, 2)}\n`);
}

export function readJson(path: string): any {
	return JSON.parse(readFileSync(path, "utf8"));
}

export const userSettingsPath = (agentDir: string) => join(agentDir, "settings.json");
export const projectSettingsPath = (cwd: string) => join(cwd, CONFIG_DIR, "settings.json");

/** `{subagents: {watchdog: w}}` */
export const wd = (watchdog: unknown) => ({ subagents: { watchdog } });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * User settings with the LSP pre-pass off unless they name `lsp` themselves: with it on, any
 * test that writes a `.ts` file starts tsserver, seconds of CPU on a small machine. The session
 * helpers apply it unless a test asks for `lsp: true` (the tests about LSP).
 */
export function withLspOff(settings: Record<string, unknown> = {}): Record<string, unknown> {
	const subagents = settings.subagents ?? {};
	if (!isObject(subagents)) return settings;
	const watchdog = subagents.watchdog ?? {};
	if (!isObject(watchdog) || watchdog.lsp !== undefined) return settings;
	return { ...settings, subagents: { ...subagents, watchdog: { ...watchdog, lsp: { enabled: false } } } };
}
