// The live registry, `<agentDir>/watchdog/live/`: every Pi session running pi-watchdog writes an
// entry there (its process, session id and file, cwd, busy or not, its mailbox folder) and
// removes it at shutdown. An entry whose process is gone was left by a crash: ignored and removed.
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { clip, oneLine } from "../util/index.ts";
import { processAlive, readJsonIn, watchdogDir, writeJsonAtomic } from "./files.ts";

export interface LiveEntry {
	pid: number;
	/** The entry's own name (pid and a random part): one process may hold sessions in turn. */
	key: string;
	sessionId: string;
	file?: string;
	cwd: string;
	/** The folder messages for this session are put in. */
	mailbox: string;
	busy: boolean;
	/** The session's evidence policy (off, keep, handsoff). */
	policy: string;
	startedAt: string;
	updatedAt: string;
	/** The session's last activity (ms since the epoch), as the session itself saw it. */
	activityAt?: number;
	/** The session (or a child under it) waits on the permission arbiter or the user: on what, since when (ISO). */
	waiting?: LiveWait;
}

export interface LiveWait {
	what: string;
	since: string;
}

export function liveDir(agentDir: string): string {
	return join(watchdogDir(agentDir), "live");
}

export function mailboxDir(agentDir: string, key: string): string {
	return join(liveDir(agentDir), `${key}.mailbox`);
}

export function writeLiveEntry(agentDir: string, entry: LiveEntry): void {
	writeJsonAtomic(join(liveDir(agentDir), `${entry.key}.json`), entry);
}

export function removeLiveEntry(agentDir: string, key: string): void {
	rmSync(join(liveDir(agentDir), `${key}.json`), { force: true });
	rmSync(mailboxDir(agentDir, key), { recursive: true, force: true });
}

/** An entry's wait, if it holds a well-formed one (the file is any process's to write): one line, bounded. */
export function liveWait(entry: LiveEntry): { what: string; sinceMs: number } | undefined {
	const w = entry.waiting as unknown;
	if (!w || typeof w !== "object") return undefined;
	const { what, since } = w as Record<string, unknown>;
	const sinceMs = typeof since === "string" ? Date.parse(since) : Number.NaN;
	if (typeof what !== "string" || !what.trim() || Number.isNaN(sinceMs)) return undefined;
	return { what: clip(oneLine(what), 200), sinceMs };
}

/** The entries of live processes; those of dead ones are removed (with their mailboxes). */
export function listLive(agentDir: string): LiveEntry[] {
	const dir = liveDir(agentDir);
	let names: string[];
	try {
		names = readdirSync(dir).filter((n) => n.endsWith(".json"));
	} catch {
		return [];
	}
	const out: LiveEntry[] = [];
	for (const name of names) {
		const o = readJsonIn(join(dir, name), dir, 64 * 1024);
		const key = name.slice(0, -".json".length);
		if (!o || typeof o.pid !== "number" || typeof o.sessionId !== "string" || o.key !== key) continue;
		if (!processAlive(o.pid)) {
			removeLiveEntry(agentDir, key);
			continue;
		}
		out.push(o as unknown as LiveEntry);
	}
	return out;
}

export interface LiveRegistration {
	mailbox: string;
	update(change: Partial<Pick<LiveEntry, "busy" | "policy" | "activityAt" | "waiting">>): void;
	remove(): void;
}

/** Registers this process's session; the caller updates it as it changes and removes it at the end. */
export function liveRegistration(
	agentDir: string,
	session: Pick<LiveEntry, "sessionId" | "file" | "cwd" | "busy" | "policy">,
): LiveRegistration {
	const key = `${process.pid}-${randomBytes(4).toString("hex")}`;
	const mailbox = mailboxDir(agentDir, key);
	mkdirSync(mailbox, { recursive: true, mode: 0o700 });
	const startedAt = new Date().toISOString();
	let entry: LiveEntry = { ...session, pid: process.pid, key, mailbox, startedAt, updatedAt: startedAt };
	writeLiveEntry(agentDir, entry);
	return {
		mailbox,
		update(change) {
			entry = { ...entry, ...change, updatedAt: new Date().toISOString() };
			writeLiveEntry(agentDir, entry);
		},
		remove: () => removeLiveEntry(agentDir, key),
	};
}
