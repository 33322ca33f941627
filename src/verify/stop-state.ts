// The stopped state of one orchestration (the launches one parent prompt made): whether it is
// at rest, and its fingerprint. The fingerprint is SHA-256 over the material fields only
// (child ids, statuses, claims, open blockers, pending permission asks, the configuration
// that matters), so timestamps, costs, counts and the watchdog's own messages never change it.
// Pure.
import { createHash } from "node:crypto";
import { extractClaims } from "../evidence/index.ts";

/** One child at rest, as the parent recorded it (a launch result; `ChildResult` fits). */
export interface StoppedChild {
	label: string;
	agent: string;
	task: string;
	status: string;
	answer: string;
	error?: string;
	sessionFile?: string;
	cwd: string;
	landed?: {
		status: string;
		paths: string[];
		conflicts?: string[];
		reason?: string;
		patchPath?: string;
		worktreeDir?: string;
	};
	blockers: { blockers: Array<{ summary: string; severity: string }>; stalemate: boolean };
	/** Permission asks still waiting for an answer (filled by the permission gate once it keeps any). */
	pendingAsks?: string[];
	/** The launches the child made itself, with their children's results. */
	below?: Array<{ runId: string; results: StoppedChild[] }>;
}

/** A leaf of the tree: a child that launched nothing, labelled by its path from the top ("lead > tester"). */
export interface Leaf {
	runId: string;
	background: boolean;
	child: StoppedChild;
	/** Labels from this session's child down to the leaf. */
	path: string[];
}

/** Past these the walk stops: the results come from files, and a tree is never this big. */
const MAX_LEAVES = 500;
const MAX_WALK_DEPTH = 8;

/**
 * Every leaf under the launches, each with the label its path gives it. A child whose own
 * launches brought no results back (lost, or refused) is a leaf itself.
 */
export function leavesOf(launches: readonly LaunchView[]): Leaf[] {
	const out: Leaf[] = [];
	const walk = (runId: string, background: boolean, child: StoppedChild, path: string[]) => {
		if (out.length >= MAX_LEAVES) return;
		const here = [...path, child.label];
		const runs = (child.below ?? []).filter((b) => b.results?.length);
		if (!runs.length || here.length >= MAX_WALK_DEPTH) {
			out.push({ runId, background, child: { ...child, label: here.join(" > ") }, path: here });
			return;
		}
		for (const b of runs) for (const c of b.results) walk(b.runId, false, c, here);
	};
	for (const l of launches) for (const r of l.results ?? []) walk(l.runId, l.background, r, []);
	return out;
}

/** One launch of an orchestration, as far as the parent knows it. */
export interface LaunchView {
	runId: string;
	background: boolean;
	/** Undefined while the run goes on; the children's results once it ended. */
	results?: StoppedChild[];
	/** The run's end state ("done", "stopped", "lost", …) once it ended. */
	state?: string;
}

export interface OrchestrationView {
	launches: LaunchView[];
	/** Launch calls of the parent's current step that have not started yet. */
	queued: number;
}

/** What of the watchdog's configuration decides a verdict: a change makes a stop new again. */
export interface VerifyConfig {
	model: string;
	thinking: string;
	severityThreshold: string;
	policy: string;
}

/** The material fields of one stopped child. */
export interface ChildRecord {
	id: string;
	agent: string;
	status: string;
	claims: string[];
	blockers: string[];
	stalemate: boolean;
	conflict: boolean;
	pendingAsks: string[];
}

export interface StopState {
	children: ChildRecord[];
	config: VerifyConfig;
}

/** At rest: something was launched, nothing is queued, and every launch has ended. */
export function atRest(view: OrchestrationView): boolean {
	return view.launches.length > 0 && view.queued === 0 && view.launches.every((l) => l.results !== undefined);
}

export function childId(runId: string, label: string): string {
	return `${runId}/${label}`;
}

/** A child's claims as the fingerprint sees them: kind and quote, whitespace folded, sorted. */
export function claimsOf(answer: string): string[] {
	const { claims } = extractClaims(answer);
	return [...new Set(claims.map((c) => `${c.kind}: ${c.quote.replace(/\s+/g, " ").trim()}`))].sort();
}

export function childRecord(runId: string, child: StoppedChild): ChildRecord {
	return {
		id: childId(runId, child.label),
		agent: child.agent,
		status: child.status,
		claims: claimsOf(child.answer),
		blockers: child.blockers.blockers.map((b) => `${b.severity}: ${b.summary}`).sort(),
		stalemate: child.blockers.stalemate,
		conflict: child.landed?.status === "conflict",
		pendingAsks: [...(child.pendingAsks ?? [])].sort(),
	};
}

/** The stopped state of an orchestration at rest. */
export function stopState(launches: LaunchView[], config: VerifyConfig): StopState {
	// Over the whole tree: a change anywhere below is a new stop, one that only shrank is a part of a reviewed one.
	const children = leavesOf(launches).map((leaf) => childRecord(leaf.runId, leaf.child));
	return { children: children.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)), config };
}

function sha256(value: unknown): string {
	return createHash("sha256").update(canonical(value)).digest("hex");
}

/** JSON with object keys sorted, so equal values hash equally whatever order they were built in. */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
	if (value && typeof value === "object") {
		const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
		return `{${entries
			.sort(([a], [b]) => (a < b ? -1 : 1))
			.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
			.join(",")}}`;
	}
	return JSON.stringify(value);
}

export function stopFingerprint(state: StopState): string {
	return sha256(state);
}

/** One child's record under the configuration: the unit a verdict is kept for. */
export function childHash(record: ChildRecord, config: VerifyConfig): string {
	return sha256({ record, config });
}

/** A state already reviewed, as kept in the session. */
export interface ReviewedState {
	fingerprint: string;
	childHashes: string[];
}

/**
 * Whether a stopped state needs a review: not when it was reviewed before, nor when its
 * children are a subset of one reviewed state (the stop only shrank).
 */
export function needsReview(
	state: StopState,
	reviewed: readonly ReviewedState[],
): { review: boolean; fingerprint: string; why?: string } {
	const fingerprint = stopFingerprint(state);
	if (!state.children.length) return { review: false, fingerprint, why: "no children" };
	if (reviewed.some((r) => r.fingerprint === fingerprint))
		return { review: false, fingerprint, why: "this stopped state was reviewed already" };
	const hashes = state.children.map((c) => childHash(c, state.config));
	if (reviewed.some((r) => hashes.every((h) => r.childHashes.includes(h))))
		return { review: false, fingerprint, why: "only a part of a reviewed stopped state" };
	return { review: true, fingerprint };
}
