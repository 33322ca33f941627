// The claims checker and the unfinished-stop detector in a live session (a monitor): at the
// settle boundary it reads the session's branch, checks the closing message's claims and how
// the run stopped, and returns findings (the sink delivers them). An unfinished stop becomes a
// nudge when the policy, the role's switch (idle.main / idle.children), the cooldown and the
// cap on nudges without progress allow it; otherwise it is shown to the user with the reason.
// In the TUI the main session's nudge waits for idle.stallMs without input (see scheduleStall).
// The policy (idle.policy) is this monitor's alone: off leaves the session out of it, handsoff
// shows its findings and nudge decisions to the user and never delivers them to the model.
import type { Finding } from "../findings/index.ts";
import { firstLine } from "../findings/index.ts";
import { BranchReader, type SessionEvent } from "../transcript/index.ts";
import type { StatusSection } from "../util/index.ts";
import { checkClaims, type ClaimSignal } from "./claims.ts";
import { claimFinding, idleFinding } from "./evidence-findings.ts";
import { EvidenceLog } from "./log.ts";
import { type IdleSignal, unfinishedStop } from "./unfinished.ts";

export type Policy = "off" | "keep" | "handsoff";

/** What each policy means, in the words status and the policy command use. Reviews and loops are never affected. */
export const POLICY_MEANING: Record<Policy, string> = {
	off:
		"claims and unfinished stops are not checked in this session, no nudge is sent " +
		"and the model is not rotated; reviews and loops go on",
	keep: "claims and unfinished stops are checked, findings and nudges delivered as usual",
	handsoff:
		"claims and unfinished stops are checked and shown to you, with the nudge the " +
		"agent would get; nothing of them is sent to the agent and a usage limit is flagged, " +
		"never rotated; child agents' findings, verifications and launch-rule warnings " +
		"are shown to you, never sent; reviews and loops go on as usual",
};

export interface IdleSettings {
	main: boolean;
	children: boolean;
	policy: Policy;
	cooldownMs: number;
	maxNudges: number;
	stallMs: number;
}

export interface SettleEvidence {
	/** Claim findings, a shown (not nudged) stop, and the nudge when one is due now. */
	findings: Finding[];
	/** The nudge among the findings, if there is one. */
	nudge?: Finding;
	/** A nudge that waits for the user to stay away (TUI, main session). */
	stall?: { finding: Finding; ms: number };
	/** One line per signal, for the reviewer model's input. */
	signals: string[];
	/** Said once when the cap on nudges without progress is reached. */
	notice?: string;
	claims: ClaimSignal[];
	stop?: IdleSignal;
	/** What a model needs to write the nudge instead of the template (idle.model). */
	context?: { goal: string; concluded: string };
}

const NONE: SettleEvidence = { findings: [], signals: [], claims: [] };

export class EvidenceWatch {
	private lastNudgeAt = Number.NEGATIVE_INFINITY;
	/** Nudges since the last progress (something landed, or a tool result that was new). */
	private nudgesWithoutProgress = 0;
	/** The number of tool calls when the last nudge went out. */
	private callsAtNudge?: number;
	private capTold = false;
	private stallTimer?: ReturnType<typeof setTimeout>;
	private last?: { claims: number; contradicted: number; stop?: string; at: number };
	private nudges = 0;
	/** The branch read so far and its log, kept between settles: a settle works out only what is new. */
	private reader = new BranchReader();
	private log = new EvidenceLog();

	/** A real user prompt: nudging starts afresh, and a waiting stall nudge is cancelled. */
	userPrompt(): void {
		this.nudgesWithoutProgress = 0;
		this.callsAtNudge = undefined;
		this.capTold = false;
		this.lastNudgeAt = Number.NEGATIVE_INFINITY;
		this.cancelStall();
	}

	/** Any input at all cancels a nudge waiting for the stall time. */
	input(): void {
		this.cancelStall();
	}

	/**
	 * The checks at the settle boundary, over the session's branch. `events`: for tests and benches that already
	 * have them.
	 */
	atSettle(
		entries: ReadonlyArray<{ type: string; message?: unknown }>,
		settings: IdleSettings,
		options: { role: string; mode: string; outcome: string; now: number; events?: SessionEvent[] },
	): SettleEvidence {
		this.cancelStall();
		if (settings.policy === "off") return NONE;
		const log = options.events ? new EvidenceLog() : this.logOf(entries);
		for (const event of options.events ?? []) log.add(event);
		const segment = log.current();
		const claims = checkClaims(log.facts, segment);
		const stop = options.outcome === "completed" ? unfinishedStop(log.facts, segment) : undefined;
		const findings = claims.map(claimFinding);
		const signals = claims.map(
			(c) => `Claims checker (${c.verdict}, ${c.kind}, calls ${c.from}–${c.to}): "${c.claim}": ${c.evidence}`,
		);
		this.last = {
			claims: claims.length,
			contradicted: claims.filter((c) => c.verdict === "contradicted").length,
			stop: stop?.kind,
			at: options.now,
		};
		const out: SettleEvidence = { findings, signals, claims, ...(stop ? { stop } : {}) };
		if (!stop) return out;
		signals.push(`Unfinished-stop detector (${stop.kind}): ${stop.evidence}`);
		const concluded = lastWords(segment.stop.text);
		if (!stop.unfinished) {
			findings.push(idleFinding(stop, segment.prompt, concluded, false));
			return out;
		}
		// Progress since the last nudge resets the count of nudges that brought none.
		if (this.callsAtNudge !== undefined && madeProgress(log, this.callsAtNudge)) {
			this.nudgesWithoutProgress = 0;
			this.capTold = false;
		}
		const main = options.role === "main";
		// handsoff: the nudge that would go out is shown to the user instead (no continuation, no stall wait).
		const why =
			settings.policy === "handsoff"
				? "policy handsoff (shown to you, never sent to the agent)"
				: !(main ? settings.main : settings.children)
					? `${main ? "idle.main" : "idle.children"} is off`
					: options.now - this.lastNudgeAt < settings.cooldownMs
						? `the last nudge was ${Math.round((options.now - this.lastNudgeAt) / 1000)} s ` +
							`ago (idle.cooldownMs: ${settings.cooldownMs})`
						: this.nudgesWithoutProgress >= settings.maxNudges
							? `${this.nudgesWithoutProgress} nudge(s) brought no progress (idle.maxNudges: ${settings.maxNudges})`
							: undefined;
		if (why && this.nudgesWithoutProgress >= settings.maxNudges && settings.maxNudges > 0 && !this.capTold) {
			this.capTold = true;
			out.notice =
				`Watchdog: stopped nudging this agent: ${this.nudgesWithoutProgress} nudge(s) ` +
				`in a row brought no progress. It needs you: ${firstLine(stop.evidence, 160)}`;
		}
		const finding = idleFinding(stop, segment.prompt, concluded, !why, why);
		out.context = { goal: segment.prompt, concluded };
		if (why) findings.push(finding);
		else if (main && options.mode === "tui") out.stall = { finding, ms: settings.stallMs };
		else {
			findings.push(finding);
			out.nudge = finding;
		}
		this.pendingCalls = log.facts.length;
		return out;
	}

	private pendingCalls = 0;

	/** The log of the branch: grown by the new entries, or read afresh when the branch is another one. */
	private logOf(entries: ReadonlyArray<{ type: string; message?: unknown }>): EvidenceLog {
		let events = this.reader.read(entries);
		if (!events) {
			this.reader = new BranchReader();
			this.log = new EvidenceLog();
			events = this.reader.read(entries) ?? [];
		}
		for (const event of events) this.log.add(event);
		return this.log;
	}

	/** The sink sent the nudge to the agent: it counts towards the cooldown and the cap. */
	nudged(now: number): void {
		this.lastNudgeAt = now;
		this.nudgesWithoutProgress++;
		this.nudges++;
		this.callsAtNudge = this.pendingCalls;
	}

	/** Waits `ms` without input, then hands the nudge over; any input cancels it. */
	scheduleStall(ms: number, deliver: () => void): void {
		this.cancelStall();
		this.stallTimer = setTimeout(() => {
			this.stallTimer = undefined;
			deliver();
		}, ms);
		this.stallTimer.unref?.();
	}

	cancelStall(): void {
		if (this.stallTimer) clearTimeout(this.stallTimer);
		this.stallTimer = undefined;
	}

	/** Whether a stall nudge is waiting (status, tests). */
	stallPending(): boolean {
		return this.stallTimer !== undefined;
	}

	section(policy: Policy, settings: IdleSettings, role: string): StatusSection {
		const on = role === "main" ? settings.main : settings.children;
		const lines = [`policy: ${policy} (${POLICY_MEANING[policy]})`];
		lines.push(
			`nudges: ${on ? "on" : `off (${role === "main" ? "idle.main" : "idle.children"}: false)`}, ` +
				`${this.nudges} sent this session, ${this.nudgesWithoutProgress}/${settings.maxNudges} ` +
				`without progress${this.stallTimer ? ", one waiting for the stall time" : ""}`,
		);
		if (this.last)
			lines.push(
				`last settle: ${this.last.claims} claim signal(s), ${this.last.contradicted} ` +
					`contradicted; stop: ${this.last.stop ?? "finished"}`,
			);
		return { title: "Evidence", lines };
	}

	brief(policy: Policy): string {
		const last = this.last;
		return (
			`Evidence: policy ${policy}, ${this.nudges} nudge(s)` +
			`${last ? `, last settle ${last.contradicted} contradicted claim(s), stop ${last.stop ?? "finished"}` : ""}`
		);
	}
}

/** The end of what the agent said: what it concluded, for the nudge to cite. */
function lastWords(text: string): string {
	const plain = text.replace(/```[\s\S]*?(```|$)/g, " ").trim();
	return plain.length <= 240 ? plain : `…${plain.slice(plain.length - 239)}`;
}

/** Something landed, or a tool result that was new, among the calls after `from`. */
function madeProgress(log: EvidenceLog, from: number): boolean {
	const before = new Set<string>();
	for (let i = 0; i < Math.min(from, log.facts.length); i++) before.add(log.facts[i]?.outcome ?? "");
	for (let i = from; i < log.facts.length; i++) {
		const f = log.facts[i];
		if (!f) continue;
		if (f.wrote || f.git?.ok || !before.has(f.outcome)) return true;
	}
	return false;
}
