// `--nudge`: every idle row of a pass is offered a nudge. Policy `off` skips it; cooldown and cap
// (the ledger) hold it; the decider (one model call, or the template) says NUDGE or SKIP, and a
// sign-off is shown as waiting. A live session gets it through its mailbox (delivered when it
// acknowledges), another through its tmux pane (tmux's exit code confirms); else it is
// unreachable: never resumed blind. `handsoff` flags the nudge without sending it.
import { mailboxDir } from "./live.ts";
import { entryOf, type Ledger, nudgeBlocked } from "./ledger.ts";
import { sendMail } from "./mailbox.ts";
import { type Decider, templateVerdict, type Verdict } from "./decide.ts";
import { findPane, typeIntoPane } from "./tmux.ts";
import type { Delivery, FleetPass, FleetRow } from "./types.ts";

export interface NudgeOptions {
	agentDir: string;
	env?: NodeJS.ProcessEnv;
	ledger: Ledger;
	limits: { cooldownMs: number; maxNudges: number };
	/** One call for the pass; absent: the template nudges. */
	decider?: Decider;
	/** How long a live session has to acknowledge. */
	ackTimeoutMs?: number;
	now?: number;
	/** A note for the pass (the decider failed and templates were used). */
	note?: (text: string) => void;
	/** The session that runs the pass (`/subagents-watchdog fleet --nudge`): its user is there, it is never nudged. */
	self?: { id?: string; file?: string };
}

const ACK_TIMEOUT_MS = 15_000;

export function policyOf(row: FleetRow, ledger: Ledger): string {
	return ledger[row.id]?.policy ?? row.live?.policy ?? "keep";
}

export async function nudgePass(pass: FleetPass, options: NudgeOptions): Promise<void> {
	const now = options.now ?? Date.now();
	const candidates: FleetRow[] = [];
	for (const row of pass.sessions) {
		if (row.state !== "idle") continue;
		const policy = policyOf(row, options.ledger);
		const blocked = isSelf(row, options.self)
			? "the session that ran this pass"
			: policy === "off"
				? "policy off"
				: nudgeBlocked(options.ledger[row.id], now, options.limits);
		if (blocked) row.delivery = { outcome: "skipped", reason: blocked };
		else candidates.push(row);
	}
	if (!candidates.length) return;
	let verdicts: Map<string, Verdict> | undefined;
	if (options.decider) {
		const decided = await options.decider(candidates);
		if ("error" in decided) options.note?.(`the decider model failed (${decided.error}); template nudges were used`);
		else verdicts = decided.verdicts;
	}
	for (const row of candidates) {
		const verdict = verdicts
			? (verdicts.get(row.id) ?? { action: "SKIP", reason: "the model gave no verdict for it", by: "model" })
			: templateVerdict(row);
		row.delivery = await carryOut(row, verdict, options);
		const entry = entryOf(options.ledger, row.id);
		if (row.delivery.outcome === "delivered") {
			entry.lastNudgeAt = now;
			entry.nudges = (entry.nudges ?? 0) + 1;
		}
	}
}

function isSelf(row: FleetRow, self: NudgeOptions["self"]): boolean {
	return Boolean(self && ((self.id && row.id === self.id) || (self.file && row.file === self.file)));
}

async function carryOut(row: FleetRow, verdict: Verdict, options: NudgeOptions): Promise<Delivery> {
	if (verdict.action === "SKIP") {
		if (verdict.signOff) {
			row.state = "waiting";
			row.reason = `needs a person (${verdict.reason})`;
		}
		return { outcome: "skipped", reason: `${verdict.by}: ${verdict.reason}` };
	}
	const message = verdict.message ?? "";
	if (policyOf(row, options.ledger) === "handsoff")
		return { outcome: "flagged", reason: "policy handsoff: shown here, never sent", message };
	if (row.live) {
		const mailbox = mailboxDir(options.agentDir, row.live.key);
		const ack = await sendMail(
			mailbox,
			row.live.pid,
			{ text: message, reason: row.reason },
			options.ackTimeoutMs ?? ACK_TIMEOUT_MS,
		);
		return ack.delivered
			? { outcome: "delivered", via: "mailbox", message }
			: { outcome: "undelivered", via: "mailbox", reason: ack.reason ?? "not acknowledged", message };
	}
	const found = findPane({ agent: row.agent, ...(row.cwd ? { cwd: row.cwd } : {}) }, options.env);
	if ("none" in found) return { outcome: "unreachable", reason: found.none, message };
	const typed = typeIntoPane(found.pane, message, options.env);
	return typed.ok
		? { outcome: "delivered", via: "tmux", pane: found.pane, message }
		: { outcome: "failed", via: "tmux", pane: found.pane, reason: typed.error ?? "tmux failed", message };
}
