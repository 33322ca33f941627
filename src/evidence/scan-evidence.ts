// The claims checker and the unfinished-stop detector over a recorded session, for
// `pi-watchdog scan`: fed the events in order, every segment (the stretch after each real user
// prompt) is checked when it closes, with the tool log up to its end. Pure.
import type { SessionEvent } from "../transcript/index.ts";
import { checkClaims, type ClaimSignal } from "./claims.ts";
import { EvidenceLog, type Segment } from "./log.ts";
import { type IdleKind, type IdleSignal, unfinishedStop } from "./unfinished.ts";

export interface ClaimsReport {
	/** A claim the log contradicts (a blocker); claims it merely does not back are listed, not flagged. */
	flagged: boolean;
	signals: Array<{
		kind: string;
		claim: string;
		from: number;
		to: number;
		evidence: string;
		verdict: ClaimSignal["verdict"];
	}>;
}

export interface IdleReport {
	/** An unfinished stop (a sign-off is listed, never flagged). */
	flagged: boolean;
	/** The last unfinished stop (else the last sign-off): its kind, the tool call before it, what shows it. */
	kind?: IdleKind;
	at?: number;
	evidence?: string;
	/** Every stop found, when there were several segments. */
	stops?: Array<{ kind: IdleKind; at: number; evidence: string }>;
}

export class EvidenceScan {
	private readonly log = new EvidenceLog();
	private readonly claims: ClaimSignal[] = [];
	private readonly stops: IdleSignal[] = [];

	add(event: SessionEvent): void {
		const closed = this.log.add(event);
		if (closed) this.check(closed);
	}

	finish(): { claims: ClaimsReport; idle: IdleReport } {
		if (this.log.hasActivity()) this.check(this.log.current());
		const signals = this.claims.map((s) => ({
			kind: s.kind,
			claim: s.claim,
			from: s.from,
			to: s.to,
			evidence: s.evidence,
			verdict: s.verdict,
		}));
		const unfinished = this.stops.filter((s) => s.unfinished);
		const main = unfinished.at(-1) ?? this.stops.at(-1);
		const idle: IdleReport = { flagged: unfinished.length > 0 };
		if (main) Object.assign(idle, { kind: main.kind, at: main.at, evidence: main.evidence });
		if (this.stops.length > 1) idle.stops = this.stops.map((s) => ({ kind: s.kind, at: s.at, evidence: s.evidence }));
		return { claims: { flagged: this.claims.some((s) => s.verdict === "contradicted"), signals }, idle };
	}

	private check(segment: Segment): void {
		this.claims.push(...checkClaims(this.log.facts, segment));
		const stop = unfinishedStop(this.log.facts, segment);
		if (stop) this.stops.push(stop);
	}
}
