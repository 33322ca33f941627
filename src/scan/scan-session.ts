// Running the deterministic detectors over one recorded session. Pure apart from reading the
// file: the same detector the live watchdog uses, fed the recorded calls in order.
import { LoopDetector, type LoopSignal, type LoopThresholds, type SignalKind, WEAK_SIGNALS } from "../loops/index.ts";
import { openSession, type SessionFormat } from "./read-session.ts";

export interface ScanSignal {
	kind: SignalKind;
	from: number;
	to: number;
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
	/** Filled by the claims checker (a later version); kept so the output shape stays stable. */
	claims: { checked: boolean };
	/** Filled by the idle-stop detector (a later version). */
	idle: { checked: boolean };
	/** Lines of the file that could not be read as JSON and were skipped. */
	skippedLines: number;
}

export async function scanSession(file: string, thresholds: Partial<LoopThresholds> = {}): Promise<ScanReport> {
	const session = await openSession(file);
	const detector = new LoopDetector(thresholds);
	const done: ScanSignal[] = [];
	// One entry per loop since the last landing or prompt: its first sighting, stretched to the
	// last call it was still seen at.
	let found = new Map<string, LoopSignal>();
	const close = (resolvedAt?: number) => {
		for (const s of found.values()) done.push({ kind: s.kind, from: s.from, to: s.to, evidence: s.evidence, ...(resolvedAt !== undefined ? { resolvedAt } : {}) });
		found = new Map();
	};
	let calls = 0;
	for await (const event of session.events) {
		if (event.type === "prompt") {
			close();
			detector.reset();
		} else if (event.type === "call") {
			calls++;
			const signals = detector.add(event.call);
			// A landing resets the detector and raises nothing: the stretches before it are resolved.
			if (detector.lastLanded === event.call.index) close(event.call.index);
			for (const signal of signals) {
				const earlier = found.get(signal.key);
				if (!earlier) found.set(signal.key, signal);
				else if (signal.to - earlier.to <= detector.thresholds.window) found.set(signal.key, { ...earlier, to: signal.to, count: signal.count, evidence: signal.evidence });
				else found.set(`${signal.key}@${signal.from}`, signal);
			}
		}
	}
	close();
	const signals = done.sort((a, b) => a.from - b.from || a.to - b.to);
	const flagged = signals.some(countsAsLoop);
	return { file, format: session.format, calls, loop: { flagged, signals }, claims: { checked: false }, idle: { checked: false }, skippedLines: session.stats.malformed };
}

/** Whether a signal makes the session a loop: exact repetition always, a weak signal only when nothing landed after it. */
export function countsAsLoop(signal: ScanSignal): boolean {
	return !WEAK_SIGNALS.has(signal.kind) || signal.resolvedAt === undefined;
}

export function reportText(report: ScanReport): string {
	const head = `${report.file}\n  format: ${report.format}, ${report.calls} tool calls${report.skippedLines ? `, ${report.skippedLines} unreadable line(s) skipped` : ""}`;
	if (!report.loop.signals.length) return `${head}\n  loops: none found`;
	const lines = report.loop.signals.map((s) => `    ${s.kind.padEnd(8)} calls ${s.from}–${s.to}: ${s.evidence}${s.resolvedAt !== undefined ? ` (then call ${s.resolvedAt} landed something)` : ""}`);
	const verdict = report.loop.flagged ? `loops: ${report.loop.signals.length} signal(s)` : `loops: none that lasted (${report.loop.signals.length} suspicion(s), each ended by something landing)`;
	return `${head}\n  ${verdict}\n${lines.join("\n")}`;
}
