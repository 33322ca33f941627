// The footer's word on the last review: `watchdog: 1 blocker sent`, `watchdog: clean`. Pure.
import type { Finding } from "../findings/index.ts";
import { clip } from "../util/index.ts";

export interface ReviewEnd {
	status: "clean" | "findings" | "failed" | "cancelled";
	failureKind?: string;
	sent: Finding[];
	shown: Finding[];
	/** The reviewer's question went to the agent. */
	asked?: boolean;
	/** Why the type check did not run: never "clean" then. */
	lspSkipped?: string;
}

export function outcomeLabel(end: ReviewEnd): string {
	if (end.status === "cancelled") return "watchdog: review cancelled (changes pending)";
	const parts: string[] = [];
	if (end.asked) parts.push("question sent");
	if (end.sent.length) parts.push(`${count(end.sent)} sent`);
	if (end.shown.length) parts.push(`${count(end.shown)} for you`);
	if (end.status === "failed") parts.push(`review failed (${end.failureKind ?? "error"})`);
	if (end.lspSkipped) parts.push(`type check skipped: ${clip(end.lspSkipped, 60)}`);
	return `watchdog: ${parts.length ? parts.join(", ") : "clean"}`;
}

/** "1 blocker", "2 concerns", "3 findings" when mixed. */
function count(findings: Finding[]): string {
	const n = findings.length;
	const kinds = new Set(findings.map((f) => f.severity));
	const word = kinds.size === 1 ? [...kinds][0] : "finding";
	return `${n} ${word}${n === 1 ? "" : "s"}`;
}
