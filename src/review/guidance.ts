// WATCHDOG.md: standing instructions for the reviewer, read fresh for each review. The
// project's file comes first, then the user's; together at most 8,000 characters.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const GUIDANCE_FILE = "WATCHDOG.md";
const MAX = 8000;

export function readGuidance(cwd: string, configDirName: string, agentDir: string): string | undefined {
	const parts: string[] = [];
	for (const [label, path] of [
		["project", join(cwd, configDirName, GUIDANCE_FILE)],
		["user", join(agentDir, GUIDANCE_FILE)],
	] as const) {
		try {
			const text = readFileSync(path, "utf8").trim();
			if (text) parts.push(`(${label}: ${path})\n${text}`);
		} catch {
			// missing or unreadable: no instructions from there
		}
	}
	if (!parts.length) return undefined;
	const all = parts.join("\n\n");
	return all.length <= MAX ? all : `${all.slice(0, MAX - 30)}\n[… cut at ${MAX} characters]`;
}
