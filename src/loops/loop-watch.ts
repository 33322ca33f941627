// The loop detector in a live session (a monitor): every tool result goes in; the first sign of
// a loop comes out as a high-importance loop-risk finding with the evidence and a way out; a
// loop that goes on escalates to a blocker (and, with loops.stopRun, asks for the run to stop);
// landing something resolves it. The same loop is never reported again without new evidence.
// A real user prompt starts afresh. It returns findings; the sink delivers them.
import { clip, type StatusSection } from "../util/index.ts";
import { type Finding, firstLine, makeFinding } from "../findings/index.ts";
import { fromPiToolCall } from "../transcript/index.ts";
import { LoopDetector, type LoopSignal, type LoopThresholds } from "./loop-detector.ts";
import { HEADLINE_MAX } from "./loop-text.ts";
import { isNudge } from "./nudge.ts";
import { describeCall, landed } from "./normalize.ts";

export const LOOP_RESOLVED_ENTRY = "watchdog-loop-resolved";

interface Reported {
	signal: LoopSignal;
	level: "warned" | "escalated";
	finding: Finding;
	/** The last call at which the detector still saw this loop. */
	lastSeen: number;
}

/** The settings the loop watch reads: whether the watchdog is on, and the loops.* keys. */
export interface LoopSettings {
	enabled: boolean;
	loops: { enabled: boolean; stopRun: boolean } & LoopThresholds;
}

/** What one tool result brought: findings to deliver, a loop that ended, a run to stop. */
export interface LoopOutcome {
	findings: Finding[];
	/** The signal behind the findings (kept in the delivered message's details). */
	signal?: LoopSignal;
	resolved?: { text: string; call: number };
	/** loops.stopRun and a loop went on after its warning. */
	stop?: string;
}

const NOTHING: LoopOutcome = { findings: [] };

/**
 * A signal as a loop-risk finding. The summary is the headline; what backs it (and, once
 * escalated, the earlier warning) is the evidence, so the two never say the same thing.
 */
export function loopFinding(signal: LoopSignal, severity: "concern" | "blocker", earlier?: LoopSignal): Finding {
	const summary = clip(severity === "blocker" ? `Still looping: ${signal.headline}` : signal.headline, HEADLINE_MAX);
	const evidence =
		severity === "blocker" && earlier
			? `Warned at call ${earlier.to}; the loop went on. ${signal.evidence}`
			: signal.evidence;
	return makeFinding(
		{ summary, evidence, recommendedAction: signal.wayOut, importance: "high", severity, category: "loop-risk" },
		"loops",
	);
}

export class LoopWatch {
	private detector?: LoopDetector;
	private thresholdsKey = "";
	private index = 0;
	private active: Reported[] = [];
	private lastFinding?: Finding;
	/** Restating seen in the agent's last message, reported with the next tool result (never at a stop). */
	private pending: LoopSignal[] = [];

	/** A new, resumed or reloaded session: nothing carries over from another one. */
	sessionStart(): void {
		this.userPrompt();
		this.index = 0;
		this.lastFinding = undefined;
	}

	/** A real user prompt: whatever the agent was stuck on, it now has new input (a bare nudge is none). */
	userPrompt(text?: string): void {
		if (text !== undefined && isNudge(text)) return;
		this.detector?.reset();
		this.active = [];
		this.pending = [];
	}

	/**
	 * The visible text of an assistant message. A restatement it completes is held until the
	 * message's next tool result: a message that ends the run is the unfinished-stop detector's
	 * business, and nothing may start a turn from here.
	 */
	assistantText(resolved: LoopSettings, text: string): void {
		if (!resolved.enabled || !resolved.loops.enabled || !text.trim()) return;
		const compaction = this.pending.filter((s) => s.kind === "compaction");
		this.pending = [...compaction, ...this.detectorFor(resolved.loops).said(text)];
	}

	/** Pi compacted the context: compactions with nothing landing between are a loop, told with the next result. */
	compacted(): void {
		if (this.detector) this.pending.push(...this.detector.compacted());
	}

	/** `resolved`: the settings in effect for this event (looked up once by the caller). */
	toolResult(
		resolved: LoopSettings,
		event: { toolName: string; input: unknown; content: unknown; isError: boolean; details?: unknown },
	): LoopOutcome {
		const loops = resolved.loops;
		if (!resolved.enabled || !loops.enabled) return NOTHING;
		const detector = this.detectorFor(loops);
		const record = fromPiToolCall(
			this.index++,
			event.toolName,
			event.input,
			event.content,
			event.isError,
			event.details,
		);
		const outcome: LoopOutcome = { findings: [] };
		if (landed(record) && this.active.length) {
			const what = this.active.map((r) => firstLine(r.finding.summary, 80)).join("; ");
			outcome.resolved = {
				text: `Watchdog: loop resolved: ${describeCall(record)} landed (${what}).`,
				call: record.index,
			};
			this.active = [];
		}
		// A restatement followed by a landing is over before it is reported.
		const restated = landed(record) ? [] : this.pending;
		this.pending = [];
		for (const signal of [...restated, ...detector.add(record)]) this.consider(signal, loops.stopRun, outcome);
		// A loop the detector has not seen for a whole window has ended without a landing.
		this.active = this.active.filter((r) => record.index - r.lastSeen <= loops.window);
		return outcome;
	}

	private consider(signal: LoopSignal, stopRun: boolean, outcome: LoopOutcome): void {
		// The same loop seen through another signal, or again: escalate once it has grown.
		const known = this.active.find(
			(r) => r.signal.key === signal.key || r.signal.subject === signal.subject || r.signal.to >= signal.from,
		);
		if (!known) {
			const finding = loopFinding(signal, "concern");
			this.active.push({ signal, level: "warned", finding, lastSeen: signal.to });
			this.report(finding, signal, outcome);
			return;
		}
		known.lastSeen = signal.to;
		if (
			known.level === "escalated" ||
			signal.to <= known.signal.to + Math.max(3, Math.ceil(known.signal.count / 2)) - 1
		)
			return;
		const finding = loopFinding(signal, "blocker", known.signal);
		known.level = "escalated";
		known.signal = signal;
		known.finding = finding;
		this.report(finding, signal, outcome);
		if (stopRun) outcome.stop = `Watchdog stopped the run: ${finding.summary}`;
	}

	private report(finding: Finding, signal: LoopSignal, outcome: LoopOutcome): void {
		this.lastFinding = finding;
		outcome.findings.push(finding);
		outcome.signal = signal;
	}

	/** Current suspicions, for the reviewer model. */
	signals(): string[] {
		return this.active.map(
			(r) =>
				`Loop detector (${r.signal.kind}, ${r.level}, calls ${r.signal.from}–${r.signal.to}): ` +
				`${r.signal.headline}. ${r.signal.evidence}`,
		);
	}

	section(watchdogOn: boolean, loopsOn: boolean): StatusSection {
		if (!loopsOn) return { title: "Loops", lines: ["off (loops.enabled: false)"] };
		if (!watchdogOn) return { title: "Loops", lines: ["idle (the watchdog is off)"] };
		const snap = this.detector?.snapshot();
		const lines = [
			snap
				? `calls seen: ${snap.calls} (window ${snap.windowFill}/${this.detector?.thresholds.window}), ` +
					`since anything landed: ${snap.callsSinceLanding}`
				: "no tool calls seen yet",
		];
		lines.push(
			this.active.length
				? `suspicions: ${this.active.map((r) => `${r.level} ${r.signal.kind} ${callRange(r.signal)}`).join("; ")}`
				: "suspicions: none",
		);
		lines.push(`last finding: ${this.lastFinding ? firstLine(this.lastFinding.summary, 120) : "none"}`);
		return { title: "Loops", lines };
	}

	/** One line for the short status. */
	brief(watchdogOn: boolean, loopsOn: boolean): string {
		if (!loopsOn) return "Loops: off (loops.enabled: false)";
		if (!watchdogOn) return "Loops: idle (the watchdog is off)";
		const snap = this.detector?.snapshot();
		const suspicions = this.active.length
			? this.active.map((r) => `${r.level} ${r.signal.kind}`).join(", ")
			: "no suspicion";
		return `Loops: ${snap ? `${snap.calls} calls seen` : "no calls yet"}, ${suspicions}`;
	}

	private detectorFor(loops: LoopSettings["loops"]): LoopDetector {
		const { enabled: _enabled, stopRun: _stopRun, ...thresholds } = loops;
		const key = JSON.stringify(thresholds);
		if (!this.detector || key !== this.thresholdsKey) {
			this.detector = new LoopDetector(thresholds);
			this.thresholdsKey = key;
		}
		return this.detector;
	}
}

function callRange(signal: { from: number; to: number }): string {
	return `(calls ${signal.from}–${signal.to})`;
}
