// What the children of a session found, as the parent keeps it: the last 20 findings with the
// child they came from (for status and `watchdog.status`), and per child the blockers its last
// boundary review left open (for the `watchdog-blocker` acceptance check). Pure bookkeeping.
import { type Finding, firstLine, sourceName } from "./finding.ts";

export const KEPT_CHILD_FINDINGS = 20;

export interface ChildFindingRecord {
	finding: Finding;
	/** The child's role (its agent's name). */
	role: string;
	/** The launch it belongs to, and the child within it (e.g. "worker#2"). */
	runId: string;
	child: string;
}

export interface ChildBlockers {
	blockers: Finding[];
	stalemate: boolean;
}

export class ChildFindings {
	private list: ChildFindingRecord[] = [];
	private open = new Map<string, ChildBlockers>();

	add(records: ChildFindingRecord[]): void {
		this.list = [...this.list, ...records].slice(-KEPT_CHILD_FINDINGS);
	}

	/** The child's last boundary review: the blockers it left open replace the ones before. */
	settled(child: string, state: ChildBlockers): void {
		this.open.set(child, state);
	}

	/** Blockers a child left open (unaddressed or stalemated); empty when it has none. */
	openBlockers(child: string): ChildBlockers {
		return this.open.get(child) ?? { blockers: [], stalemate: false };
	}

	recent(): readonly ChildFindingRecord[] {
		return this.list;
	}

	/** The child findings for status, newest first. */
	lines(): string[] {
		if (!this.list.length) return ["no child findings this session"];
		const lines = [...this.list]
			.reverse()
			.map(
				(r) =>
					`  ${r.finding.severity}/${r.finding.importance} [${sourceName(r.finding.source)}] ` +
					`${r.child} (run ${r.runId}): ${firstLine(r.finding.summary, 100)}`,
			);
		return [`child findings (last ${this.list.length}, newest first):`, ...lines];
	}
}
