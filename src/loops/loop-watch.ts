// The loop detector in a live session: every tool result goes in; the first sign of a loop is
// steered into the run as a high-importance loop-risk finding with the evidence and a way
// out; a loop that goes on escalates to a blocker (and, with loops.stopRun, stops the run);
// landing something resolves it and says so. The same loop is never reported again without
// new evidence. A real user prompt starts afresh.
import type { ResolvedSettings } from "../settings/resolve.ts";
import type { StatusSection } from "../status/status-text.ts";
import { FINDING_MESSAGE } from "../review/delivery.ts";
import { agentMessage, type Finding, firstLine, makeFinding } from "../review/finding.ts";
import { fromPiToolCall } from "./call-record.ts";
import { LoopDetector, type LoopSignal } from "./loop-detector.ts";
import { describeCall, landed } from "./normalize.ts";

export const LOOP_RESOLVED_ENTRY = "watchdog-loop-resolved";

interface Reported {
	signal: LoopSignal;
	level: "warned" | "escalated";
	finding: Finding;
	/** The last call at which the detector still saw this loop. */
	lastSeen: number;
}

export interface LoopWatchDeps<C> {
	settings: (ctx: C) => ResolvedSettings;
	steer: (message: { customType: string; content: string; display: boolean; details?: unknown }) => void;
	persist: (customType: string, data: unknown) => void;
	present: (ctx: C, text: string, level: "info" | "warning" | "error") => void;
	abort: (ctx: C) => void;
}

export class LoopWatch<C> {
	private readonly deps: LoopWatchDeps<C>;
	private detector?: LoopDetector;
	private thresholdsKey = "";
	private index = 0;
	private active: Reported[] = [];
	private lastFinding?: Finding;

	constructor(deps: LoopWatchDeps<C>) {
		this.deps = deps;
	}

	/** A new, resumed or reloaded session: nothing carries over from another one. */
	sessionStart(): void {
		this.userPrompt();
		this.index = 0;
		this.lastFinding = undefined;
	}

	/** A real user prompt: whatever the agent was stuck on, it now has new input. */
	userPrompt(): void {
		this.detector?.reset();
		this.active = [];
	}

	toolResult(ctx: C, event: { toolName: string; input: unknown; content: unknown; isError: boolean; details?: unknown }): void {
		const resolved = this.deps.settings(ctx);
		const loops = resolved.settings.loops;
		if (!resolved.enabled || !loops.enabled) return;
		const detector = this.detectorFor(loops);
		const record = fromPiToolCall(this.index++, event.toolName, event.input, event.content, event.isError, event.details);
		if (landed(record) && this.active.length) {
			const what = this.active.map((r) => firstLine(r.finding.summary, 80)).join("; ");
			const text = `Watchdog: loop resolved: ${describeCall(record)} landed (${what}).`;
			this.active = [];
			this.deps.present(ctx, text, "info");
			this.deps.persist(LOOP_RESOLVED_ENTRY, { text, at: Date.now(), call: record.index });
		}
		for (const signal of detector.add(record)) this.consider(ctx, signal, loops.stopRun);
		// A loop the detector has not seen for a whole window has ended without a landing.
		this.active = this.active.filter((r) => record.index - r.lastSeen <= loops.window);
	}

	private consider(ctx: C, signal: LoopSignal, stopRun: boolean): void {
		// The same loop seen through another signal, or again: escalate once it has grown.
		const known = this.active.find((r) => r.signal.key === signal.key || r.signal.subject === signal.subject || r.signal.to >= signal.from);
		if (!known) {
			const finding = this.finding(signal, "concern");
			this.active.push({ signal, level: "warned", finding, lastSeen: signal.to });
			this.deliver(finding, signal);
			return;
		}
		known.lastSeen = signal.to;
		if (known.level === "escalated" || signal.to <= known.signal.to + Math.max(3, Math.ceil(known.signal.count / 2)) - 1) return;
		const finding = this.finding(signal, "blocker", known.signal);
		known.level = "escalated";
		known.signal = signal;
		known.finding = finding;
		this.deliver(finding, signal);
		if (stopRun) {
			this.deps.present(ctx, `Watchdog stopped the run: ${finding.summary}`, "warning");
			this.deps.abort(ctx);
		}
	}

	private finding(signal: LoopSignal, severity: "concern" | "blocker", earlier?: LoopSignal): Finding {
		const summary = severity === "blocker" ? `Still looping after the warning at call ${earlier?.to}: ${firstLine(signal.evidence, 140)}` : `Possible loop: ${firstLine(signal.evidence, 160)}`;
		return makeFinding({ summary, evidence: signal.evidence, recommendedAction: signal.wayOut, importance: "high", severity, category: "loop-risk" }, "loops");
	}

	private deliver(finding: Finding, signal: LoopSignal): void {
		this.lastFinding = finding;
		try {
			this.deps.steer({ customType: FINDING_MESSAGE, content: agentMessage("The watchdog noticed the run going in circles.", [finding]), display: true, details: { findings: [finding], signal } });
		} catch {
			// the session went away meanwhile
		}
	}

	/** Current suspicions, for the reviewer model. */
	signals(): string[] {
		return this.active.map((r) => `Loop detector (${r.signal.kind}, ${r.level}, calls ${r.signal.from}–${r.signal.to}): ${r.signal.evidence}`);
	}

	section(enabled: boolean): StatusSection {
		if (!enabled) return { title: "Loops", lines: ["off"] };
		const snap = this.detector?.snapshot();
		const lines = [snap ? `calls seen: ${snap.calls} (window ${snap.windowFill}/${this.detector?.thresholds.window}), since anything landed: ${snap.callsSinceLanding}` : "no tool calls seen yet"];
		lines.push(this.active.length ? `suspicions: ${this.active.map((r) => `${r.level} ${r.signal.kind} (calls ${r.signal.from}–${r.signal.to})`).join("; ")}` : "suspicions: none");
		lines.push(`last finding: ${this.lastFinding ? firstLine(this.lastFinding.summary, 120) : "none"}`);
		return { title: "Loops", lines };
	}

	private detectorFor(loops: ResolvedSettings["settings"]["loops"]): LoopDetector {
		const { enabled: _enabled, stopRun: _stopRun, ...thresholds } = loops;
		const key = JSON.stringify(thresholds);
		if (!this.detector || key !== this.thresholdsKey) {
			this.detector = new LoopDetector(thresholds);
			this.thresholdsKey = key;
		}
		return this.detector;
	}
}
