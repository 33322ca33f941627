// Temporary folders that are removed when the test file ends. Test files share a worker
// (isolate: false), so this module is loaded once per worker: the removal is registered for
// every file by the setup file (restore-env.ts), not by the first call here.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

export function tempDir(prefix = "pi-watchdog-"): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	made.push(dir);
	return dir;
}

/** Removes every folder tempDir made since the last call (after each test file). */
export function removeTempDirs(): void {
	for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 3 });
}
