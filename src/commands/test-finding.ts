// `/subagents-watchdog test concern|blocker [text]` (pi-subagents' command): a sample finding
// through the findings sink, so the user sees what a finding looks like where findings reach
// them. Marked "Test finding", and of medium importance: shown and recorded, never sent to the
// agent, never continuing a run.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { makeFinding } from "../findings/index.ts";
import type { WatchdogSession } from "../session/index.ts";

type Severity = "concern" | "blocker";

export function showTestFinding(
	session: WatchdogSession,
	ctx: ExtensionContext,
	severity: Severity,
	text: string,
): string {
	const asked = `/subagents-watchdog test ${severity}`;
	const finding = makeFinding(
		{
			summary: `Test finding: ${text.trim() || `a sample ${severity} from ${asked}`}`,
			evidence:
				`The user asked for this test finding with ${asked} at ` +
				`${new Date().toISOString()}; ` +
				`nothing was reviewed.`,
			recommendedAction: "Nothing to do: it shows how a finding reaches you.",
			importance: "medium",
			severity,
			category: "other",
		},
		"test",
	);
	// Shown whatever the severity threshold: the user asked to see one.
	const settings = { ...session.settings(ctx).settings, severityThreshold: "concern" as const };
	const fate = session.deliver(ctx, [finding], settings, { test: true }, true)?.decisions[0]?.fate;
	if (fate === "shown to you")
		return `Showed a test ${severity} (not sent to the agent; recorded in history as source test).`;
	return `The test ${severity} was not shown: ${fate ?? "nothing to show"}.`;
}
