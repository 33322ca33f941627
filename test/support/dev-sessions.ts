// The real recorded sessions of the development set (../shared/sessions/dev, read in place):
// WATCHDOG_SESSIONS, else the nearest `shared/sessions/dev` beside a folder above this checkout
// (a worktree sits deeper than the main checkout), as bench/detector-quality.bench.ts finds them.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export function devSessionsDir(): string {
	if (process.env.WATCHDOG_SESSIONS) return resolve(process.env.WATCHDOG_SESSIONS);
	let dir = resolve(import.meta.dirname, "../..");
	for (let up = 0; up < 4; up++) {
		const parent = dirname(dir);
		const candidate = join(parent, "shared/sessions/dev");
		if (existsSync(join(candidate, "labels.json"))) return candidate;
		dir = parent;
	}
	throw new Error("no shared/sessions/dev beside a folder above this checkout: set WATCHDOG_SESSIONS to it");
}

/** The session files of the development set (every format the scan reads), by path. */
export function devSessionFiles(): string[] {
	const dir = devSessionsDir();
	return readdirSync(dir)
		.filter((name) => /\.(jsonl|md)$/.test(name))
		.sort()
		.map((name) => join(dir, name));
}
