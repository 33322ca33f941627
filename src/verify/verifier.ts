// Stopped-subtree verification in a parent session (the monitor's shell). It keeps the
// launches of each orchestration (one parent prompt's launches, foreground and background);
// each time a run is seen to end (a foreground launch returns, a background completion
// arrives, `wait` or `status` finds the end) it asks whether that orchestration is at rest,
// and verifies a stopped state it has not reviewed: the claims checker first, then one model
// review for what it could not decide. What it finds goes to the findings sink; the
// fingerprints it reviewed are kept in the session, so a resume does not review them again.
// Its only outputs are findings and a note: it launches nothing and changes no setting.
import { existsSync, statSync } from "node:fs";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { checkClaims, EvidenceLog } from "../evidence/index.ts";
import type { Finding } from "../findings/index.ts";
import type { ReviewerChoice } from "../models/index.ts";
import { projectRoot, toolsRootFor, type ToolsRoot } from "../review/index.ts";
import { isPlainObject, type StatusSection } from "../util/index.ts";
import { type ChildCheck, type ChildLog, judgeChild } from "./child-check.ts";
import { queuedLaunchCalls } from "./launch-calls.ts";
import { runModelCheck, withModelVerdicts } from "./model-check.ts";
import {
	atRest,
	childHash,
	childRecord,
	type LaunchView,
	leavesOf,
	needsReview,
	type ReviewedState,
	type StoppedChild,
	stopState,
	type VerifyConfig,
} from "./stop-state.ts";
import { assemble, VERIFY_SOURCE } from "./verdicts.ts";

export const VERIFY_ENTRY = "watchdog-verification";
const KEPT_REVIEWED = 200;
const KEPT_ORCHESTRATIONS = 20;
const KEPT_CALLS = 500;

/** What a verification leaves in the session (a custom entry, never in model context). */
export interface VerifyRecord extends ReviewedState {
	at: number;
	children: Array<{ id: string; label: string; hash: string; verdict: string }>;
	outcome: string;
	verdicts: string;
	via: string;
	note: string;
	model?: string;
	cost?: number;
}

export interface VerifierDeps {
	enabled(ctx: ExtensionContext): boolean;
	config(ctx: ExtensionContext): { config: VerifyConfig; timeoutMs: number; choice: ReviewerChoice };
	/** The commit the parent session started at (for `watchdog_diff` in the parent's tree). */
	baseline(): string | null;
	/** The sink, during a run or when idle. */
	deliver(ctx: ExtensionContext, findings: Finding[], idle: boolean): void;
	/** The sink's user-only note. */
	note(ctx: ExtensionContext, text: string): void;
	persist(customType: string, data: unknown): void;
	record(ctx: ExtensionContext, event: Record<string, unknown>): void;
}

export interface RunEnd {
	runId: string;
	results: StoppedChild[];
	/** How the end was seen: "launch", "completion", "wait", "status". */
	via: string;
	toolCallId?: string;
	/** The session file of the session that launched the run (its status says). */
	parentSession?: string;
}

export class SubtreeVerifier {
	private readonly deps: VerifierDeps;
	private prompt = 0;
	private readonly launches = new Map<string, { orch: string; view: LaunchView }>();
	/** Launch calls running now, by tool-call id, with their orchestration. */
	private readonly inFlight = new Map<string, string>();
	private readonly seenCalls = new Set<string>();
	private reviewed: ReviewedState[] = [];
	private readonly verdictOf = new Map<string, { label: string; verdict: string }>();
	private last?: VerifyRecord;
	private count = 0;
	/** Stops seen at rest that needed no review (reviewed already, or a part of a reviewed one). */
	private skipped = 0;
	private stop = new AbortController();

	constructor(deps: VerifierDeps) {
		this.deps = deps;
	}

	/** Session start or resume: the stopped states reviewed before are not reviewed again. */
	restore(entries: ReadonlyArray<{ type: string; customType?: string; data?: unknown }>): void {
		this.reviewed = [];
		this.verdictOf.clear();
		this.last = undefined;
		this.count = 0;
		for (const e of entries) {
			if (e.type !== "custom" || e.customType !== VERIFY_ENTRY || !isRecord(e.data)) continue;
			this.remember(e.data);
			this.count++;
		}
	}

	userPrompt(): void {
		this.prompt++;
	}

	/** A launch call starts (its run id is not known yet for a foreground launch). */
	launching(toolCallId: string): void {
		this.inFlight.set(toolCallId, this.current());
		this.seenCalls.add(toolCallId);
		// Only the current step's calls matter; the oldest are forgotten past a bound.
		if (this.seenCalls.size > KEPT_CALLS) this.seenCalls.delete(this.seenCalls.values().next().value as string);
	}

	/** A background launch returned its run id: the run goes on. */
	started(toolCallId: string, runId: string): void {
		const orch = this.inFlight.get(toolCallId) ?? this.current();
		this.inFlight.delete(toolCallId);
		this.launches.set(runId, { orch, view: { runId, background: true } });
	}

	/** A launch call failed before any run began. */
	abandoned(toolCallId: string): void {
		this.inFlight.delete(toolCallId);
	}

	/** A run was seen to end; verifies its orchestration if it is at rest and its stop is new. Never throws. */
	async ended(ctx: ExtensionContext, end: RunEnd): Promise<void> {
		try {
			const orch = this.place(ctx, end);
			if (!orch || !this.deps.enabled(ctx)) return;
			const launches = [...this.launches.values()].filter((l) => l.orch === orch).map((l) => l.view);
			const queued =
				[...this.inFlight.values()].filter((o) => o === orch).length +
				(orch === this.current() ? queuedLaunchCalls(branchOf(ctx), this.seenCalls) : 0);
			if (!atRest({ launches, queued })) return;
			const { config, timeoutMs, choice } = this.deps.config(ctx);
			const state = stopState(launches, config);
			const decision = needsReview(state, this.reviewed);
			if (!decision.review) {
				if (state.children.length) this.skipped++;
				return;
			}
			// Claimed before any await: the same stop seen again meanwhile is not reviewed twice.
			const hashes = state.children.map((c) => childHash(c, config));
			this.reviewed = [...this.reviewed, { fingerprint: decision.fingerprint, childHashes: hashes }].slice(
				-KEPT_REVIEWED,
			);
			await this.verify(ctx, launches, decision.fingerprint, config, { timeoutMs, choice, via: end.via });
		} catch (error) {
			this.deps.record(ctx, {
				kind: "failure",
				what: "verification",
				message: error instanceof Error ? error.message : String(error),
			});
		}
	}

	/** Background runs of this session seen to start and never seen to end (never verified). */
	openRuns(): string[] {
		return [...this.launches.values()].filter((l) => l.view.background && !l.view.results).map((l) => l.view.runId);
	}

	shutdown(): void {
		this.stop.abort();
		this.stop = new AbortController();
	}

	section(): StatusSection {
		const last = this.last;
		if (!last) return { title: "Verification", lines: ["no stopped children verified this session"] };
		return {
			title: "Verification",
			lines: [
				`last: ${new Date(last.at).toISOString().slice(11, 19)}, ${last.children.length} ` +
					`${last.children.length === 1 ? "child" : "children"} checked (seen through ${last.via}), ` +
					`fingerprint ${last.fingerprint.slice(0, 12)}`,
				`verdicts: ${last.verdicts}`,
				`${this.count} verification(s) this session, ${this.skipped} stop(s) seen again ` +
					`and not reviewed${last.model ? `; last model review ${last.model}, $${(last.cost ?? 0).toFixed(4)}` : ""}`,
			],
		};
	}

	brief(): string | undefined {
		const last = this.last;
		return last
			? `Verification: ${last.children.length} ${last.children.length === 1 ? "child" : "children"} ` +
					`[${last.fingerprint.slice(0, 12)}]: ${last.verdicts}`
			: undefined;
	}

	private current(): string {
		return `p${this.prompt}`;
	}

	/**
	 * The orchestration the run belongs to: the prompt that launched it, or (a run of this session from before a
	 * resume) its own.
	 */
	private place(ctx: ExtensionContext, end: RunEnd): string | undefined {
		const known = this.launches.get(end.runId);
		const fromCall = end.toolCallId ? this.inFlight.get(end.toolCallId) : undefined;
		if (end.toolCallId) this.inFlight.delete(end.toolCallId);
		let orch = known?.orch ?? fromCall;
		if (!orch) {
			const mine = sessionFileOf(ctx);
			if (!mine || end.parentSession !== mine) return undefined; // not a run of this session: outside its subtree
			orch = `run:${end.runId}`;
		}
		this.launches.set(end.runId, {
			orch,
			view: { runId: end.runId, background: known?.view.background ?? !end.toolCallId, results: end.results },
		});
		this.prune();
		return orch;
	}

	private prune(): void {
		const orchs = [...new Set([...this.launches.values()].map((l) => l.orch))];
		const old = new Set(orchs.slice(0, Math.max(0, orchs.length - KEPT_ORCHESTRATIONS)));
		for (const [id, l] of this.launches) if (old.has(l.orch)) this.launches.delete(id);
	}

	private async verify(
		ctx: ExtensionContext,
		launches: LaunchView[],
		fingerprint: string,
		config: VerifyConfig,
		how: { timeoutMs: number; choice: ReviewerChoice; via: string },
	): Promise<void> {
		const checks: ChildCheck[] = [];
		const earlier: Array<{ id: string; label: string; hash: string; verdict: string }> = [];
		const hashOf = new Map<string, string>();
		for (const { runId, background, child: r } of leavesOf(launches)) {
			const hash = childHash(childRecord(runId, r), config);
			const before = this.verdictOf.get(hash);
			if (before) {
				earlier.push({ id: childRecord(runId, r).id, label: r.label, hash, verdict: before.verdict });
				continue;
			}
			const check = judgeChild(runId, background, r, await readLog(r.sessionFile));
			hashOf.set(check.id, hash);
			checks.push(check);
		}
		let model: { ref: string; cost: number } | undefined;
		const undecided = checks.filter((c) => c.verdict === undefined);
		let judged = checks;
		if (undecided.length) {
			const { root, note } = rootFor(undecided, ctx.cwd);
			if (note) this.deps.note(ctx, `Watchdog verification: ${note}`);
			const baseline = root === projectRoot(ctx.cwd) ? this.deps.baseline() : null;
			const { verdicts, outcome } = await runModelCheck({
				registry: ctx.modelRegistry,
				choice: how.choice,
				checks: undecided,
				root,
				note,
				baseline,
				timeoutMs: how.timeoutMs,
				cancel: this.stop.signal,
			});
			model = { ref: outcome.model, cost: outcome.usage.cost };
			const decided = withModelVerdicts(
				undecided,
				verdicts,
				outcome.failure
					? `${outcome.failure.kind}: ${outcome.failure.message}`
					: outcome.status === "cancelled"
						? "cancelled"
						: undefined,
			);
			judged = checks.map((c) => decided.find((d) => d.id === c.id) ?? c);
		}
		const outcome = assemble(judged, earlier, fingerprint);
		const record: VerifyRecord = {
			at: Date.now(),
			fingerprint,
			childHashes: [...(this.reviewed.find((r) => r.fingerprint === fingerprint)?.childHashes ?? [])],
			children: [
				...judged.map((c) => ({
					id: c.id,
					label: c.label,
					hash: hashOf.get(c.id) ?? "",
					verdict: c.verdict ?? "unverified",
				})),
				...earlier,
			],
			outcome: outcome.outcome,
			verdicts: outcome.verdicts,
			via: how.via,
			note: outcome.note,
			...(model ? { model: model.ref, cost: model.cost } : {}),
		};
		this.remember(record);
		this.count++;
		this.deps.persist(VERIFY_ENTRY, record);
		this.deps.note(ctx, outcome.note);
		if (outcome.findings.length) this.deps.deliver(ctx, outcome.findings, idleOf(ctx));
		this.deps.record(ctx, {
			kind: "verification",
			source: VERIFY_SOURCE,
			summary: outcome.note,
			outcome: outcome.outcome,
			fingerprint: fingerprint.slice(0, 16),
			children: record.children.length,
			verdicts: outcome.verdicts,
			via: how.via,
			...(model ? { model: model.ref, cost: model.cost } : {}),
		});
	}

	private remember(record: VerifyRecord): void {
		if (!this.reviewed.some((r) => r.fingerprint === record.fingerprint))
			this.reviewed = [...this.reviewed, { fingerprint: record.fingerprint, childHashes: record.childHashes }].slice(
				-KEPT_REVIEWED,
			);
		for (const c of record.children) if (c.hash) this.verdictOf.set(c.hash, { label: c.label, verdict: c.verdict });
		this.last = record;
	}
}

/** A child's session file as the claims checker reads it; any failure is said, never thrown. */
async function readLog(sessionFile: string | undefined): Promise<ChildLog | { error: string }> {
	if (!sessionFile) return { error: "the child has no session file" };
	try {
		const log = new EvidenceLog();
		// The session-file reader loads with the first verification, not with Pi.
		const { readSessionEvents } = await import("../scan/index.ts");
		for await (const event of readSessionEvents(sessionFile)) log.add(event);
		return { facts: log.facts, signals: checkClaims(log.facts, log.current()) };
	} catch (error) {
		return { error: error instanceof Error ? error.message : String(error) };
	}
}

/**
 * Where the model review may look: the children's own folder when they share one that still
 * exists and lies in the parent's repository (or is its worktree), else the parent's repository.
 */
function rootFor(checks: Array<{ cwd: string }>, parentCwd: string): ToolsRoot {
	const dirs = [...new Set(checks.map((c) => c.cwd))];
	const only = dirs.length === 1 ? dirs[0] : undefined;
	try {
		if (only && existsSync(only) && statSync(only).isDirectory()) return toolsRootFor(only, parentCwd);
	} catch {}
	return { root: projectRoot(parentCwd) };
}

function branchOf(ctx: ExtensionContext): ReadonlyArray<{ type: string; message?: unknown }> {
	try {
		return ctx.sessionManager.getBranch();
	} catch {
		return [];
	}
}

function sessionFileOf(ctx: ExtensionContext): string | undefined {
	try {
		return ctx.sessionManager.getSessionFile();
	} catch {
		return undefined;
	}
}

function idleOf(ctx: ExtensionContext): boolean {
	try {
		return ctx.isIdle();
	} catch {
		return true;
	}
}

function isRecord(data: unknown): data is VerifyRecord {
	return (
		isPlainObject(data) &&
		typeof data.fingerprint === "string" &&
		Array.isArray(data.childHashes) &&
		Array.isArray(data.children)
	);
}
