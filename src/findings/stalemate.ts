// Stalemate: the same finding raised by consecutive boundary reviews means the agent is not
// making progress on it; after `stalemateRepeats` in a row the watchdog stops pushing. A
// real user prompt resets the count. Pure.
import { type Finding, sameFinding } from "./finding.ts";

export interface Streak {
	finding: Pick<Finding, "summary" | "evidence" | "category">;
	count: number;
}

export interface StalemateState {
	streaks: Streak[];
}

export const NO_STALEMATE: StalemateState = { streaks: [] };

/**
 * Records one review's findings. Findings that match one from the previous review extend its
 * streak; the rest start at 1; streaks not raised again end (a clean review ends them all).
 */
export function recordReview(
	state: StalemateState,
	findings: Finding[],
	repeats: number,
): { state: StalemateState; stalemated: Finding[]; longest: number } {
	const streaks: Streak[] = [];
	const stalemated: Finding[] = [];
	for (const finding of findings) {
		const previous = state.streaks.find((s) => sameFinding(s.finding, finding));
		const count = (previous?.count ?? 0) + 1;
		streaks.push({
			finding: { summary: finding.summary, evidence: finding.evidence, category: finding.category },
			count,
		});
		if (count >= repeats) stalemated.push(finding);
	}
	return { state: { streaks }, stalemated, longest: Math.max(0, ...streaks.map((s) => s.count)) };
}
