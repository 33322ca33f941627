// Running the deterministic detectors over one recorded session. Pure apart from reading the
// file: the same detector the live watchdog uses, fed the recorded calls in order.
import { LoopDetector, type LoopSignal, type LoopThresholds } from "../loops/loop-detector.ts";
import { openSession, type SessionFormat } from "./read-session.ts";

export interface ScanReport {
	file: string;
	format: SessionFormat;
	calls: number;
	loop: { flagged: boolean; signals: Array<{ kind: string; from: number; to: number; evidence: string }> };
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
	// One entry per loop: its first sighting, stretched to the last call it was still seen at.
	const found = new Map<string, LoopSignal>();
	let calls = 0;
	for await (const event of session.events) {
		if (event.type === "prompt") detector.reset();
		else if (event.type === "call") {
			calls++;
			for (const signal of detector.add(event.call)) {
				const earlier = found.get(signal.key);
				if (!earlier) found.set(signal.key, signal);
				else if (signal.to - earlier.to <= detector.thresholds.window) found.set(signal.key, { ...earlier, to: signal.to, count: signal.count, evidence: signal.evidence });
				else found.set(`${signal.key}@${signal.from}`, signal);
			}
		}
	}
	const signals = [...found.values()].sort((a, b) => a.from - b.from || a.to - b.to).map((s) => ({ kind: s.kind, from: s.from, to: s.to, evidence: s.evidence }));
	return { file, format: session.format, calls, loop: { flagged: signals.length > 0, signals }, claims: { checked: false }, idle: { checked: false }, skippedLines: session.stats.malformed };
}

export function reportText(report: ScanReport): string {
	const head = `${report.file}\n  format: ${report.format}, ${report.calls} tool calls${report.skippedLines ? `, ${report.skippedLines} unreadable line(s) skipped` : ""}`;
	if (!report.loop.flagged) return `${head}\n  loops: none found`;
	const lines = report.loop.signals.map((s) => `    ${s.kind.padEnd(8)} calls ${s.from}–${s.to}: ${s.evidence}`);
	return `${head}\n  loops: ${report.loop.signals.length} signal(s)\n${lines.join("\n")}`;
}
