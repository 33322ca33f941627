// Running the deterministic detectors over one recorded session. Pure apart from reading the
// file: the same detector the live watchdog uses, fed the recorded calls in order.
import { type ClaimsReport, EvidenceScan, type IdleReport } from "../evidence/index.ts";
import {
	isNudge,
	LoopDetector,
	type LoopSignal,
	type LoopThresholds,
	type SignalKind,
	WEAK_SIGNALS,
} from "../loops/index.ts";
import { openSession, type SessionFormat } from "./read-session.ts";

export interface ScanSignal {
	kind: SignalKind;
	from: number;
	to: number;
	/** What happened, in a short line; the detail is in the evidence. */
	summary: string;
	evidence: string;
	/** The call that landed something after it (an edit, a write, a commit), when one did. */
	resolvedAt?: number;
}

export interface ScanReport {
	file: string;
	format: SessionFormat;
	calls: number;
	/**
	 * flagged: the session looped. Exact repetition (repeat, rerun, cycle, dominant, reread)
	 * counts wherever it happened; the weak signals (target, stale: calls that told nothing new)
	 * count only when the stretch they describe never ended in anything landing.
	 */
	loop: { flagged: boolean; signals: ScanSignal[] };
	/** The claims checker: flagged when the log contradicts a claim of a closing message. */
	claims: ClaimsReport;
	/**
	 * The unfinished-stop detector: flagged when a segment ended in an unfinished stop (sign-offs are listed,
	 * not flagged).
	 */
	idle: IdleReport;
	/** Lines of the file that could not be read as JSON and were skipped. */
	skippedLines: number;
}

export async function scanSession(file: string, thresholds: Partial<LoopThresholds> = {}): Promise<ScanReport> {
	const session = await openSession(file);
	const detector = new LoopDetector(thresholds);
	const evidence = new EvidenceScan();
	const done: ScanSignal[] = [];
	// One entry per loop since the last landing or prompt: its first sighting, stretched to the
	// last call it was still seen at, whose headline and evidence it reports (read only here: the
	// detector writes a signal's text when it is read).
	let found = new Map<string, { kind: SignalKind; from: number; to: number; last: LoopSignal }>();
	const close = (resolvedAt?: number) => {
		for (const s of found.values())
			done.push({
				kind: s.kind,
				from: s.from,
				to: s.to,
				summary: s.last.headline,
				evidence: s.last.evidence,
				...(resolvedAt !== undefined ? { resolvedAt } : {}),
			});
		found = new Map();
	};
	const note = (signals: LoopSignal[]) => {
		for (const signal of signals) {
			const earlier = found.get(signal.key);
			if (earlier && signal.to - earlier.to <= detector.thresholds.window) {
				earlier.to = signal.to;
				earlier.last = signal;
			} else
				found.set(earlier ? `${signal.key}@${signal.from}` : signal.key, {
					kind: signal.kind,
					from: signal.from,
					to: signal.to,
					last: signal,
				});
		}
	};
	let calls = 0;
	for await (const batch of session.batches)
		for (const event of batch) {
			evidence.add(event);
			if (event.type === "prompt") {
				// A nudge ("continue", "come on") is no new input: the streaks go on.
				if (isNudge(event.text)) continue;
				close();
				detector.reset();
			} else if (event.type === "compaction") note(detector.compacted(event.overflow === true));
			else if (event.type === "call") {
				calls++;
				const signals = detector.add(event.call);
				// A landing resets the detector and raises nothing: the stretches before it are resolved.
				if (detector.lastLanded === event.call.index) close(event.call.index);
				note(signals);
			} else if (event.text) note(detector.said(event.text));
		}
	close();
	const signals = done.sort((a, b) => a.from - b.from || a.to - b.to);
	const flagged = signals.some(countsAsLoop);
	const { claims, idle } = evidence.finish();
	return {
		file,
		format: session.format,
		calls,
		loop: { flagged, signals },
		claims,
		idle,
		skippedLines: session.stats.malformed,
	};
}

/**
 * Whether a signal makes the session a loop: exact repetition always, a weak signal only when nothing landed
 * after it.
 */
export function countsAsLoop(signal: ScanSignal): boolean {
	return !WEAK_SIGNALS.has(signal.kind) || signal.resolvedAt === undefined;
}

/** The signal that best shows the loop: exact repetition before a suspicion, then the longest. */
export function strongestLoop(signals: ScanSignal[]): ScanSignal | undefined {
	let best: ScanSignal | undefined;
	const score = (x: ScanSignal) => (countsAsLoop(x) ? 1e9 : 0) + (WEAK_SIGNALS.has(x.kind) ? 0 : 1e6) + (x.to - x.from);
	for (const x of signals) if (!best || score(x) > score(best)) best = x;
	return best;
}

export function reportText(report: ScanReport): string {
	const head =
		`${report.file}\n  format: ${report.format}, ${report.calls} tool calls` +
		`${report.skippedLines ? `, ${report.skippedLines} unreadable line(s) skipped` : ""}`;
	return [head, ...loopLines(report), ...claimLines(report), ...idleLines(report)].join("\n");
}

function loopLines(report: ScanReport): string[] {
	if (!report.loop.signals.length) return ["  loops: none found"];
	const lines = report.loop.signals.map(
		(s) =>
			`    ${s.kind.padEnd(8)} calls ${s.from}–${s.to}: ${s.summary}` +
			`${s.resolvedAt !== undefined ? ` (then call ${s.resolvedAt} landed something)` : ""}` +
			`\n${" ".repeat(13)}${s.evidence}`,
	);
	const top = strongestLoop(report.loop.signals);
	const strongest = top ? ` (strongest: ${top.kind}, calls ${top.from}–${top.to})` : "";
	const verdict = report.loop.flagged
		? `loops: ${report.loop.signals.length} signal(s)${strongest}`
		: `loops: none that lasted (${report.loop.signals.length} suspicion(s), each ended by something landing)`;
	return [`  ${verdict}`, ...lines];
}

function claimLines(report: ScanReport): string[] {
	const signals = report.claims.signals;
	if (!signals.length) return ["  claims: nothing the log contradicts"];
	const contradicted = signals.filter((s) => s.verdict === "contradicted").length;
	const top = signals.find((x) => x.verdict === "contradicted");
	const verdict = top
		? `claims: ${contradicted} contradicted by the log (strongest: ${top.kind}, calls ${top.from}–${top.to})`
		: "claims: none contradicted";
	const lines = signals.map(
		(s) =>
			`    ${s.verdict === "contradicted" ? "FALSE   " : "unbacked"} ` +
			`calls ${s.from}–${s.to}: "${s.claim}": ${s.evidence}`,
	);
	return [
		`  ${verdict}${signals.length > contradicted ? `, ${signals.length - contradicted} not backed` : ""}`,
		...lines,
	];
}

function idleLines(report: ScanReport): string[] {
	const idle = report.idle;
	if (!idle.kind) return ["  idle: finished properly"];
	const stops = idle.stops ?? [{ kind: idle.kind, at: idle.at ?? -1, evidence: idle.evidence ?? "" }];
	const lines = stops.map((s) => `    ${s.kind.padEnd(13)} after call ${s.at}: ${s.evidence}`);
	return [
		`  idle: ${idle.flagged ? `unfinished stop (${idle.kind})` : "stopped for the user (sign-off), not unfinished"}`,
		...lines,
	];
}
