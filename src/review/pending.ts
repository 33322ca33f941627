// Pending changes: paths changed since the last review that completed, each with why it is
// still pending (the review that should have covered it was cancelled or failed). The next
// review takes them with its own paths; a completed review clears what it covered. Pure.
import type { StatusSection } from "../util/index.ts";
import type { ReviewRecord } from "./review-record.ts";

/** Path → why it is pending. */
export type PendingChanges = Map<string, string>;

/** This review's paths: its own and the pending ones; `carriedOver` are the pending ones. */
export function takePending(pending: PendingChanges, paths: string[]): { paths: string[]; carriedOver: string[] } {
	const carriedOver = [...pending.keys()].sort();
	return { paths: [...new Set([...paths, ...carriedOver])].sort(), carriedOver };
}

/** After a review of `reviewed`: cleared when it completed, pending with `reason` when it did not. */
export function settlePending(pending: PendingChanges, reviewed: string[], reason: string | undefined): PendingChanges {
	const next = new Map(pending);
	for (const path of reviewed) {
		if (reason) next.set(path, reason);
		else next.delete(path);
	}
	return next;
}

/** The pending changes as the last review left them (after /reload, resume or a restart). */
export function pendingFromRecord(record: Pick<ReviewRecord, "pending"> | undefined): PendingChanges {
	const kept = record?.pending;
	if (!kept || typeof kept !== "object") return new Map();
	return new Map(Object.entries(kept).filter((e): e is [string, string] => typeof e[1] === "string"));
}

export function pendingSection(pending: PendingChanges): StatusSection {
	if (!pending.size) return { title: "Pending", lines: ["nothing: every change so far was reviewed"] };
	const byReason = new Map<string, string[]>();
	for (const [path, why] of pending) byReason.set(why, [...(byReason.get(why) ?? []), path]);
	const lines = [...byReason].map(
		([why, paths]) =>
			`${paths.length} path(s), ${why}: ${paths.slice(0, 8).join(", ")}${paths.length > 8 ? ", …" : ""}`,
	);
	return { title: "Pending", lines: [...lines, "they are reviewed at the end of the next run"] };
}
