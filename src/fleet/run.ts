// One whole fleet pass as the command runs it: the pass, the nudges (with --nudge), the ledger
// written back, a history line per pass, nudge and skip (never transcript text), and the notify
// command told of new attention rows.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { appendHistory, historyDir, type HistoryEventInput } from "../findings/index.ts";
import { clip, readFileInRoot } from "../util/index.ts";
import type { Decider } from "./decide.ts";
import { watchdogDir } from "./files.ts";
import { entryOf, type Ledger, readLedger, writeLedger } from "./ledger.ts";
import { type NudgeOptions, nudgePass } from "./nudge.ts";
import { runPass, type PassOptions } from "./pass.ts";
import { countLine } from "./view.ts";
import type { FleetPass, FleetRow } from "./types.ts";

export interface FleetRunOptions extends PassOptions {
	nudge: boolean;
	limits: { cooldownMs: number; maxNudges: number };
	decider?: Decider;
	ackTimeoutMs?: number;
	/** `fleet.notify`: a command line run with each new attention row on stdin. */
	notify?: string | false;
	/** The session that runs the pass, when one does: never nudged. */
	self?: NudgeOptions["self"];
	historyMaxBytes?: number;
}

export interface FleetRun {
	pass: FleetPass;
	notes: string[];
}

const NOTIFY_TIMEOUT_MS = 10_000;

export async function fleetRun(options: FleetRunOptions): Promise<FleetRun> {
	const now = options.now ?? Date.now();
	const pass = runPass({ ...options, now });
	const notes: string[] = [];
	const ledger = readLedger(options.agentDir);
	for (const row of pass.sessions) {
		const entry = entryOf(ledger, row.id);
		entry.seenAt = now;
		if (row.state === "working" || row.state === "done") entry.nudges = 0; // progress, or the end
	}
	if (options.nudge)
		await nudgePass(pass, {
			agentDir: options.agentDir,
			...(options.env ? { env: options.env } : {}),
			ledger,
			limits: options.limits,
			...(options.decider ? { decider: options.decider } : {}),
			...(options.ackTimeoutMs ? { ackTimeoutMs: options.ackTimeoutMs } : {}),
			...(options.self ? { self: options.self } : {}),
			now,
			note: (text) => notes.push(text),
		});
	if (options.notify) await notifyNew(options.notify, pass, ledger);
	try {
		writeLedger(options.agentDir, ledger, now);
	} catch (error) {
		notes.push(`the fleet ledger could not be written (${(error as Error).message}); cooldowns may not hold`);
	}
	record(options, pass, notes);
	return { pass, notes };
}

/** The user's playbook (`<agentDir>/watchdog/PLAYBOOK.md`), read through the guarded reader. */
export function readPlaybook(agentDir: string): string | undefined {
	const dir = watchdogDir(agentDir);
	const read = readFileInRoot(join(dir, "PLAYBOOK.md"), { root: dir, maxBytes: 16 * 1024, overLimit: "truncate" });
	return read.state === "ok" ? read.text : undefined;
}

function record(options: FleetRunOptions, pass: FleetPass, notes: string[]): void {
	const dir = historyDir(options.agentDir);
	const put = (event: HistoryEventInput) => appendHistory(dir, event, { maxBytes: options.historyMaxBytes });
	const counts = countLine(pass.sessions) || "no sessions";
	put({
		kind: "fleet",
		source: "fleet",
		session: "fleet",
		cwd: "",
		summary: `fleet pass: ${counts}${pass.skipped.length ? `; ${pass.skipped.length} file(s) passed over` : ""}`,
		outcome: options.nudge ? "nudge" : "view",
		...(notes.length ? { details: { note: clip(notes.join("; "), 400) } } : {}),
	});
	for (const row of pass.sessions) {
		const d = row.delivery;
		if (!d) continue;
		put({
			kind: "nudge",
			source: "fleet",
			session: row.id,
			cwd: row.cwd ?? "",
			// The kind of stop, never the reason: that quotes the agent's words.
			summary: `fleet nudge ${d.outcome}${d.via ? ` via ${d.via}` : ""} (${row.state}, ${row.kind ?? "no stop kind"})`,
			outcome: d.outcome,
			details: {
				state: row.state,
				agent: row.agent,
				...(d.via ? { via: d.via } : {}),
				...(d.pane ? { pane: d.pane } : {}),
				...(d.reason ? { reason: clip(d.reason, 200) } : {}),
			},
		});
	}
}

/** Each attention row whose state was not yet notified goes to the command as one JSON line. */
async function notifyNew(command: string, pass: FleetPass, ledger: Ledger): Promise<void> {
	for (const row of pass.sessions) {
		const entry = entryOf(ledger, row.id);
		if (!row.attention) {
			delete entry.notified;
			continue;
		}
		if (entry.notified === row.state) continue;
		entry.notified = row.state;
		await runNotify(command, notifyLine(row));
	}
}

export function notifyLine(row: FleetRow): string {
	const { id, state, reason, agent, cwd, label, preview, lastActivityAt, delivery } = row;
	const line = { id, state, reason, agent, cwd, label, preview, lastActivityAt, delivery: delivery?.outcome };
	return `${JSON.stringify(line)}\n`;
}

function runNotify(command: string, line: string): Promise<void> {
	return new Promise((done) => {
		const child = spawn("sh", ["-c", command], { stdio: ["pipe", "ignore", "ignore"] });
		const timer = setTimeout(() => child.kill("SIGKILL"), NOTIFY_TIMEOUT_MS);
		child.on("error", () => {
			clearTimeout(timer);
			done();
		});
		child.on("close", () => {
			clearTimeout(timer);
			done();
		});
		child.stdin.on("error", () => {});
		child.stdin.end(line);
	});
}
