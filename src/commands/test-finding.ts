// `/subagents-watchdog test concern|blocker [text]` (pi-subagents' command): a sample finding
// through the findings sink, so the user sees what a finding looks like where findings reach
// them. Marked as a test in every line, and of medium importance: shown and recorded, never
// sent to the agent, never continuing a run.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { makeFinding } from "../findings/index.ts";
import type { WatchdogSession } from "../session/index.ts";

export function showTestFinding(session: WatchdogSession, ctx: ExtensionContext, severity: "concern" | "blocker", text: string): string {
	const finding = makeFinding(
		{
			summary: `Test finding: ${text.trim() || `a sample ${severity} from /subagents-watchdog test`}`,
			evidence: `This is a test finding the user asked for with /subagents-watchdog test ${severity} at ${new Date().toISOString()}; nothing was reviewed.`,
			recommendedAction: "Nothing to do: it shows how a finding reaches you.",
			importance: "medium",
			severity,
			category: "other",
		},
		"test",
	);
	// Shown whatever the severity threshold: the user asked to see one.
	const plan = session.sink.duringRun(ctx, [finding], { ...session.settings(ctx).settings, severityThreshold: "concern" }, { test: true }, true);
	const fate = plan?.decisions[0]?.fate;
	return fate === "shown to you" ? `Showed a test ${severity} (not sent to the agent; recorded in history as source test).` : `The test ${severity} was not shown: ${fate ?? "nothing to show"}.`;
}
