// The fleet's memory across passes, `<agentDir>/watchdog/fleet-ledger.json`: per session, its
// nudges (when, how many since it last made progress), the state last notified, and a policy
// set for it (off, keep, handsoff). Small, written whole; a damaged file starts over empty.
import { join } from "node:path";
import { isPlainObject } from "../util/index.ts";
import { readJsonIn, watchdogDir, writeJsonAtomic } from "./files.ts";

export interface LedgerEntry {
	lastNudgeAt?: number;
	/** Nudges since the session was last seen working or done. */
	nudges?: number;
	/** The state last sent to the notify command. */
	notified?: string;
	policy?: "off" | "keep" | "handsoff";
	/** When this entry was last touched: entries untouched for a month are dropped. */
	seenAt?: number;
}

export type Ledger = Record<string, LedgerEntry>;

const KEEP_MS = 30 * 86_400_000;

export function ledgerPath(agentDir: string): string {
	return join(watchdogDir(agentDir), "fleet-ledger.json");
}

export function readLedger(agentDir: string): Ledger {
	const o = readJsonIn(ledgerPath(agentDir), watchdogDir(agentDir), 8 << 20);
	const sessions = o && isPlainObject(o.sessions) ? o.sessions : {};
	const out: Ledger = {};
	for (const [id, value] of Object.entries(sessions)) if (isPlainObject(value)) out[id] = value as LedgerEntry;
	return out;
}

export function writeLedger(agentDir: string, ledger: Ledger, now = Date.now()): void {
	const kept: Ledger = {};
	for (const [id, entry] of Object.entries(ledger))
		if (entry.policy || now - (entry.seenAt ?? 0) < KEEP_MS) kept[id] = entry;
	writeJsonAtomic(ledgerPath(agentDir), { sessions: kept });
}

/** Why a nudge may not go now (cooldown, cap), or undefined. */
export function nudgeBlocked(
	entry: LedgerEntry | undefined,
	now: number,
	limits: { cooldownMs: number; maxNudges: number },
): string | undefined {
	if (entry?.lastNudgeAt !== undefined && now - entry.lastNudgeAt < limits.cooldownMs)
		return `cooldown: nudged ${Math.round((now - entry.lastNudgeAt) / 1000)}s ago`;
	if ((entry?.nudges ?? 0) >= limits.maxNudges)
		return `cap: ${entry?.nudges} nudges without progress (fleet.maxNudges ${limits.maxNudges})`;
	return undefined;
}

/** The session's entry, made when it has none. */
export function entryOf(ledger: Ledger, id: string): LedgerEntry {
	let entry = ledger[id];
	if (!entry) {
		entry = {};
		ledger[id] = entry;
	}
	return entry;
}
