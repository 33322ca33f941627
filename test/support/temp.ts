// Temporary folders that are removed when the test file ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];
let hooked = false;

export function tempDir(prefix = "pi-watchdog-"): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	made.push(dir);
	if (!hooked) {
		hooked = true;
		afterAll(() => {
			for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
		});
	}
	return dir;
}
