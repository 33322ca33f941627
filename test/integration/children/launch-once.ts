// One launch through the parent's model, for tests of launches in real sessions: the parent
// calls subagent once with `args`, then answers; every request in between is a child's.
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import type { TestSession } from "../../support/pi-session.ts";
import { allText, type Ctx, toolUse } from "../review/review-helpers.ts";

type Msg = { role: string; toolName?: string; content: unknown; isError?: boolean };

/** The last result of the subagent tool in the parent session. */
export const subagentResult = (t: TestSession) =>
	(t.session.messages as Msg[]).filter((m) => m.role === "toolResult" && m.toolName === "subagent").at(-1);

/** Returns what the parent's model saw after the call, and how many child requests there were. */
export async function launchOnce(
	t: TestSession,
	args: Record<string, unknown>,
	childTurns: Array<(ctx: Ctx) => ReturnType<typeof fauxAssistantMessage>> = [],
) {
	const seen = { after: "", childRequests: 0 };
	t.main.setResponses([
		toolUse("subagent", args),
		...childTurns.map((turn) => (ctx: Ctx) => (seen.childRequests++, turn(ctx))),
		(ctx: Ctx) => ((seen.after = allText(ctx)), fauxAssistantMessage("Parent done.")),
	]);
	await t.session.prompt("launch it");
	await t.session.waitForIdle();
	return seen;
}
