// The port through which children reach the session that launched them: a launch starting,
// what a child's watchdog shows while it runs, and a run's end. What a child, a background
// run or a verification says to this session's model goes through its findings sink from
// here; the children's code never reaches into the session otherwise.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type {
	ChildBlockers,
	ChildFindingRecord,
	ChildFindings,
	ChildReport,
	FindingsSink,
	ParentChannel,
} from "../findings/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import type { RunEnd, SubtreeVerifier } from "../verify/index.ts";

/** What became of one launch call. */
export interface LaunchHandle {
	/** A background launch returned its run id: the run goes on. */
	started(runId: string): void;
	/** The call failed, or was stopped, before its run could be seen to end. */
	abandoned(): void;
}

export interface ChildPort {
	/** A launch call starts (the stopped-subtree verifier follows every launch of this prompt). */
	launching(toolCallId: string): LaunchHandle;
	/** What a child's watchdog showed or sent, as it happens: status and history keep it. */
	findings(records: ChildFindingRecord[]): void;
	/** A child's boundary review: the blockers it left open (the acceptance check reads them). */
	settled(child: string, state: ChildBlockers): void;
	/**
	 * A run was seen to end. `report`, given once per run (a foreground launch's return, a
	 * background run's completion), goes through the sink; then the verifier looks at the stop.
	 */
	ended(ctx: ExtensionContext, end: RunEnd, report?: ChildReport): Promise<void>;
}

/** The parts of the session the port uses. */
export interface PortSession {
	readonly sink: FindingsSink;
	/** A child session's channel to its parent: its own launches' results rise through it. */
	readonly parent?: ParentChannel;
	readonly subtree: SubtreeVerifier;
	readonly children: ChildFindings;
	settings(ctx: ExtensionContext): ResolvedSettings;
}

export function childPort(session: PortSession): ChildPort {
	return {
		launching(toolCallId) {
			session.subtree.launching(toolCallId);
			return {
				started: (runId) => session.subtree.started(toolCallId, runId),
				abandoned: () => session.subtree.abandoned(toolCallId),
			};
		},
		findings: (records) => session.children.add(records),
		settled: (child, state) => session.children.settled(child, state),
		async ended(ctx, end, report) {
			if (report) {
				try {
					session.sink.fromChildren(ctx, report, session.settings(ctx).settings, idle(ctx));
				} catch {
					// a stale context (reload, new session): the run's folder keeps its result
				}
			}
			try {
				session.parent?.ended?.(end.runId, end.results);
			} catch {
				// the parent's own trouble never stops this session's verification
			}
			await session.subtree.ended(ctx, end);
		},
	};
}

function idle(ctx: ExtensionContext): boolean {
	try {
		return ctx.isIdle();
	} catch {
		return true;
	}
}
