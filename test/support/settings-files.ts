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
