// What the watchdog remembers about its reviews: each review is appended to the session as
// a custom entry (never model context), so status, deduplication and the stalemate count
// survive /reload, resume and a restart. Pure.
import { type Finding, firstLine, type Question } from "../findings/index.ts";
import type { FailureKind, ReviewUsage } from "./reviewer.ts";
import type { StatusSection } from "../util/index.ts";

export const REVIEW_ENTRY = "watchdog-review";
const KEEP_FINDINGS = 20;

export interface ReviewRecord {
	at: number;
	/** "activity": a run that orchestrated children and changed nothing locally (clarification on). */
	trigger: "boundary" | "activity" | "cadence" | "command";
	status: "clean" | "findings" | "failed" | "cancelled";
	model: string;
	thinking: string;
	durationMs: number;
	usage: ReviewUsage;
	changedPaths: string[];
	/** Paths an earlier review left pending that this one took on. */
	carriedOver?: string[];
	findings: Finding[];
	/** The reviewer's question, when it asked one (clarification on). */
	question?: Question;
	failure?: { kind: FailureKind; message: string };
	/** Longest run of the same finding across consecutive reviews after this one. */
	stalemateCount: number;
	stalemate: boolean;
	/** What is still pending after this review: path → why. */
	pending?: Record<string, string>;
}

export interface ReviewHistory {
	last?: ReviewRecord;
	lastWarning?: Finding;
	recentFindings: Finding[];
	totalCost: number;
	reviews: number;
	/** What the latest record (a cancelled review's too) left pending. */
	pending?: Record<string, string>;
}

export const EMPTY_HISTORY: ReviewHistory = { recentFindings: [], totalCost: 0, reviews: 0 };

export function addRecord(history: ReviewHistory, record: ReviewRecord): ReviewHistory {
	const recentFindings = [...history.recentFindings, ...record.findings].slice(-KEEP_FINDINGS);
	return {
		last: record,
		lastWarning: record.findings.at(-1) ?? history.lastWarning,
		recentFindings,
		totalCost: history.totalCost + (record.usage?.cost ?? 0),
		reviews: history.reviews + 1,
		pending: record.pending,
	};
}

export function historyFromEntries(
	entries: ReadonlyArray<{ type: string; customType?: string; data?: unknown }>,
): ReviewHistory {
	let history = EMPTY_HISTORY;
	for (const e of entries) {
		if (
			e.type === "custom" &&
			e.customType === REVIEW_ENTRY &&
			e.data &&
			typeof e.data === "object" &&
			Array.isArray((e.data as ReviewRecord).findings)
		) {
			const record = e.data as ReviewRecord;
			// A cancelled review is no review, but what it left pending counts.
			history = record.status === "cancelled" ? { ...history, pending: record.pending } : addRecord(history, record);
		}
	}
	return history;
}

export function reviewSection(history: ReviewHistory, enabled: boolean, lastError?: string): StatusSection {
	const last = history.last;
	const warning = history.lastWarning;
	const lines = [
		enabled
			? "trigger: at the end of each run that changed the repository (outside git: a successful edit or write)"
			: "trigger: none (the watchdog is off)",
	];
	if (!last) lines.push("last review: none this session");
	else {
		const when = new Date(last.at).toISOString().replace("T", " ").slice(0, 19);
		const outcome =
			last.status === "failed"
				? `failed (${last.failure?.kind}: ${firstLine(last.failure?.message ?? "", 120)})`
				: last.status === "findings"
					? `${last.findings.length} finding(s)`
					: last.status;
		lines.push(
			`last review: ${when}, ${last.model} (thinking ${last.thinking}), ${(last.durationMs / 1000).toFixed(1)} ` +
				`s, ${last.usage.totalTokens} tokens, $${last.usage.cost.toFixed(4)}, ${outcome}`,
		);
		lines.push(`changed paths: ${pathList(last.changedPaths)}`);
		lines.push(
			`stalemate count: ${last.stalemateCount}` +
				`${last.stalemate ? " (stalemate: findings no longer sent to the agent until your next prompt)" : ""}`,
		);
	}
	lines.push(
		`last warning: ` +
			`${warning ? `${warning.importance}/${warning.severity}: ${firstLine(warning.summary, 120)}` : "none"}`,
	);
	if (lastError) lines.push(`last problem: ${lastError}`);
	lines.push(`reviews this session: ${history.reviews}, total review cost: $${history.totalCost.toFixed(4)}`);
	return { title: "Review", lines };
}

/** The first ten paths and how many there are in all. */
function pathList(paths: string[]): string {
	if (!paths.length) return "none";
	return paths.slice(0, 10).join(", ") + (paths.length > 10 ? `, … (${paths.length})` : "");
}
