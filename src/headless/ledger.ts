// What a headless run (print or RPC mode, CI) needs to know at its end: every history line the
// session's watchdog wrote (reviews, findings and their fates, loops, verifications, failures)
// and, per settle, the findings it handed to the sink. From these and the session's entries
// (review and verification records) it says which blockers are still open. Pure.
import type { Finding } from "../findings/index.ts";

/** Lines kept per kind; a run that writes more keeps its latest and counts the rest. */
const KEPT_LINES = 2000;

/** What one settle handed to the sink: `verdict` when a review with a verdict ran in it. */
export interface SettleSeen {
	findings: Finding[];
	verdict: boolean;
}

export type BlockerKind = "finding" | "stalemate" | "claim" | "unfinished" | "child" | "review" | "pending";

export interface Blocker {
	kind: BlockerKind;
	summary: string;
	source?: string;
	evidence?: string;
}

/** A review record as the session keeps it (`watchdog-review` entries); only what the end needs. */
export interface ReviewLike {
	status: string;
	failure?: { kind: string; message: string };
	pending?: Record<string, string>;
}

/** A verification record (`watchdog-verification` entries); only what the end needs. */
export interface VerificationLike {
	outcome: string;
	children: Array<{ id: string; label: string; verdict: string }>;
}

/** The state at the end that the ledger does not see go by. */
export interface EndState {
	reviews: ReviewLike[];
	verifications: VerificationLike[];
	/** A finding stalemated since the last user prompt. */
	stalemate: boolean;
	/** Background runs started and never seen to end: their children were never verified. */
	openRuns?: string[];
}

/** Verdicts on a child that leave its work unproven (a child the user stopped is not one). */
const UNPROVEN = new Set(["unproven", "contradicted", "unfinished", "needs-user", "unverified"]);
const EVIDENCE = new Set(["claims", "idle"]);
/** The unfinished-stop finding that asks for a person's decision: a sign-off, not unfinished work. */
const SIGN_OFF = "Stopped for your decision";

export class HeadlessLedger {
	private readonly lines: Record<string, unknown>[] = [];
	private dropped = 0;
	/** Review, LSP and children's findings of the last settle whose review gave a verdict. */
	private reviewOpen: Finding[] = [];
	/** Claims and unfinished stops of the last settle: they judge the latest closing message. */
	private evidenceOpen: Finding[] = [];

	/** One history line as the session wrote it. */
	record(line: Record<string, unknown>): void {
		this.lines.push(line);
		if (this.lines.length > KEPT_LINES) {
			this.lines.shift();
			this.dropped++;
		}
	}

	/** One settle's findings (an empty one when nothing reached the sink). */
	settled(seen: SettleSeen): void {
		const open = seen.findings.filter(isOpen);
		this.evidenceOpen = open.filter((f) => EVIDENCE.has(f.source));
		if (seen.verdict) this.reviewOpen = open.filter((f) => !EVIDENCE.has(f.source) && f.source !== "loops");
	}

	history(): { lines: readonly Record<string, unknown>[]; dropped: number } {
		return { lines: this.lines, dropped: this.dropped };
	}

	/** The blockers still open at the end, in a fixed order. */
	blockers(end: EndState): Blocker[] {
		const out: Blocker[] = [];
		for (const f of this.reviewOpen) out.push(fromFinding("finding", f));
		if (end.stalemate) out.push({ kind: "stalemate", summary: "a finding stalemated: the agent kept not fixing it" });
		for (const f of this.evidenceOpen) {
			if (f.source === "claims" && f.severity === "blocker") out.push(fromFinding("claim", f));
			else if (f.source === "idle" && f.summary !== SIGN_OFF) out.push(fromFinding("unfinished", f));
		}
		const verification = end.verifications.at(-1);
		for (const c of verification?.children ?? [])
			if (UNPROVEN.has(c.verdict))
				out.push({ kind: "child", summary: `child ${c.label} (${c.id}): ${c.verdict}`, source: "verify" });
		for (const run of end.openRuns ?? [])
			out.push({
				kind: "child",
				summary: `background run ${run} had not ended when the session did: its children were never verified`,
				source: "verify",
			});
		const last = end.reviews.filter((r) => r.status !== "cancelled").at(-1);
		if (last?.status === "failed")
			out.push({
				kind: "review",
				summary: `the last review failed (${last.failure?.kind ?? "error"}: ${last.failure?.message ?? "no message"})`,
			});
		const pending = pendingAtEnd(end.reviews);
		if (pending.length) {
			const why = [...new Set(pending.map((p) => p.reason))].join("; ");
			out.push({ kind: "pending", summary: `${pending.length} changed path(s) never reviewed: ${why}` });
		}
		return out;
	}
}

/** What the last review record (a cancelled one's too) left pending. */
export function pendingAtEnd(reviews: readonly ReviewLike[]): Array<{ path: string; reason: string }> {
	const pending = reviews.at(-1)?.pending ?? {};
	return Object.entries(pending)
		.filter((e): e is [string, string] => typeof e[1] === "string")
		.map(([path, reason]) => ({ path, reason }));
}

function isOpen(f: Finding): boolean {
	return f.importance === "high" || f.severity === "blocker" || (f.source === "idle" && f.summary !== SIGN_OFF);
}

function fromFinding(kind: BlockerKind, f: Finding): Blocker {
	const source = f.child ? `${f.source} (child ${f.child})` : f.source;
	return { kind, summary: f.summary, source, evidence: f.evidence };
}
