// Writing our keys into a Pi settings file without disturbing anything else in it.
// Pi guards its own settings writes with proper-lockfile on the settings path (lock directory
// `<file>.lock`, realpath off); we take the same lock, re-read the file under it, change only
// `subagents.watchdog`, and replace the file atomically (temp file + rename).
import { chmodSync, mkdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { readFileInRoot } from "../util/index.ts";
import { parseJson, SETTINGS_MAX_BYTES } from "./files.ts";
import { isPlainObject } from "../util/index.ts";

export type WatchdogMutation = (watchdog: Record<string, unknown>) => void;

const LOCK_RETRIES = { retries: 50, minTimeout: 10, maxTimeout: 100, factor: 1.5 };

/** `root`: the folder a symlinked settings file may lead into (see safe-file). */
export async function updateWatchdogSettings(file: string, root: string, mutate: WatchdogMutation): Promise<void> {
	mkdirSync(dirname(file), { recursive: true });
	let release: (() => Promise<void>) | undefined;
	try {
		// Loaded on the first write, not with Pi.
		const lockfile = (await import("proper-lockfile")).default;
		release = await lockfile.lock(file, { realpath: false, retries: LOCK_RETRIES, stale: 10_000 });
	} catch (error) {
		throw new Error(`could not lock ${file} to save watchdog settings: ${(error as Error).message}`);
	}
	try {
		// A symlinked settings file (dotfile managers) keeps its link: write where it points.
		const read = readFileInRoot(file, { root, maxBytes: SETTINGS_MAX_BYTES, overLimit: "refuse" });
		if (read.state === "refused") throw new Error(`not saved: ${read.reason}`);
		const target = read.state === "ok" ? realpathSync(file) : file;
		const current = read.state === "ok" ? read.text : "";
		let doc: Record<string, unknown> = {};
		if (current.trim() !== "") {
			const parsed = parseJson(current);
			if (!parsed.ok) throw new Error(`not saved: ${file} is not valid JSON (${parsed.error}); fix the file first`);
			if (!isPlainObject(parsed.value)) throw new Error(`not saved: ${file} does not hold a JSON object`);
			doc = parsed.value;
		}
		if (doc.subagents !== undefined && !isPlainObject(doc.subagents))
			throw new Error(`not saved: "subagents" in ${file} is not an object`);
		const subagents = (doc.subagents ?? {}) as Record<string, unknown>;
		if (subagents.watchdog !== undefined && !isPlainObject(subagents.watchdog)) {
			throw new Error(`not saved: "subagents.watchdog" in ${file} is not an object`);
		}
		// A user's own empty "subagents": {} stays; one that held only our keys goes with them.
		const keepEmptySubagents = isPlainObject(doc.subagents) && Object.keys(doc.subagents).length === 0;
		const watchdog = (subagents.watchdog ?? {}) as Record<string, unknown>;
		mutate(watchdog);
		pruneEmpty(watchdog);
		if (Object.keys(watchdog).length > 0) subagents.watchdog = watchdog;
		else delete subagents.watchdog;
		if (Object.keys(subagents).length > 0 || keepEmptySubagents) doc.subagents = subagents;
		else delete doc.subagents;
		writeAtomic(target, `${JSON.stringify(doc, null, 2)}\n`);
	} finally {
		await release().catch(() => {});
	}
}

function writeAtomic(target: string, text: string): void {
	const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now().toString(36)}.tmp`);
	try {
		writeFileSync(temp, text, { encoding: "utf8", flag: "wx" });
		try {
			chmodSync(temp, statSync(target).mode & 0o777);
		} catch {
			// new file: default mode
		}
		renameSync(temp, target);
	} catch (error) {
		rmSync(temp, { force: true });
		throw error;
	}
}

/** Removes objects left empty by a mutation (e.g. after deleting a role's last key). */
function pruneEmpty(obj: Record<string, unknown>): void {
	for (const [k, v] of Object.entries(obj)) {
		if (isPlainObject(v)) {
			pruneEmpty(v);
			if (Object.keys(v).length === 0) delete obj[k];
		}
	}
}
