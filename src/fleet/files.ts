// Small files under <agentDir>/watchdog/ that several processes share (the live registry, the
// mailboxes, the ledger, the watch lock): written whole (a temp file renamed over the old one),
// read through the guarded reader and parsed as one JSON object.
import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readJsonObject } from "../util/index.ts";

export function watchdogDir(agentDir: string): string {
	return join(agentDir, "watchdog");
}

export function writeJsonAtomic(path: string, value: unknown): void {
	mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
	const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
	try {
		writeFileSync(temp, `${JSON.stringify(value)}\n`, { mode: 0o600, flag: "wx" });
		renameSync(temp, path);
	} catch (error) {
		rmSync(temp, { force: true });
		throw error;
	}
}

/** One JSON object from a file inside `root`, or undefined (missing, refused, not an object). */
export function readJsonIn(path: string, root: string, maxBytes = 1 << 20): Record<string, unknown> | undefined {
	return readJsonObject(path, root, maxBytes);
}

export { processAlive } from "../util/index.ts";
