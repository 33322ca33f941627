// `history` in a real in-process Pi session: the command and the `subagent` tool's
// `watchdog.history` read what was appended to `<agentDir>/watchdog/history.jsonl`.
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import type { HistoryEventInput } from "../../../src/findings/history-event.ts";
import { HistoryLog } from "../../../src/findings/history-log.ts";
import { startSession, type TestSession } from "../../support/pi-session.ts";

/** Appends this session's events (and one from another project) the way the findings sink does. */
function appendEvents(t: TestSession): string {
	const session = t.session.sessionManager.getSessionId();
	const log = new HistoryLog({ agentDir: () => t.agentDir, maxBytes: () => 10_485_760 });
	const events: HistoryEventInput[] = [
		{
			kind: "review",
			session,
			cwd: t.cwd,
			trigger: "boundary",
			model: "faux-reviewer/reviewer-model",
			thinking: "off",
			durationMs: 2_500,
			tokens: 1_200,
			cost: 0.002,
			outcome: "findings",
			paths: 2,
		},
		{
			kind: "finding",
			session,
			cwd: t.cwd,
			source: "lsp",
			importance: "high",
			severity: "blocker",
			summary: "src/mul.ts:2 Cannot find name 'y'",
			evidence: "const x = y * 2;",
			fate: "sent to the agent",
		},
		{
			kind: "finding",
			session,
			cwd: t.cwd,
			source: "main",
			importance: "low",
			severity: "concern",
			summary: "mul has no test",
			evidence: "src/mul.ts is new",
			fate: "shown to you",
		},
		{
			kind: "finding",
			session: "another-session",
			cwd: "/somewhere/else",
			source: "main",
			importance: "high",
			severity: "concern",
			summary: "elsewhere",
			evidence: "e",
			fate: "sent to the agent",
		},
	];
	for (const event of events) expect(log.append(event)).toMatchObject({ ok: true });
	return session;
}

/** The main model calls `subagent` with each argument set in turn; returns the tool results. */
async function toolCalls(
	t: TestSession,
	calls: Array<Parameters<typeof fauxToolCall>[1]>,
): Promise<Array<{ text: string; isError: boolean }>> {
	const results: Array<{ text: string; isError: boolean }> = [];
	type Context = { messages: Array<{ role: string; content: unknown; isError?: boolean }> };
	const capture = (context: Context) => {
		const last = context.messages.at(-1);
		if (last?.role === "toolResult")
			results.push({
				text: (last.content as Array<{ text?: string }>).map((c) => c.text ?? "").join(""),
				isError: last.isError === true,
			});
	};
	t.main.setResponses([
		...calls.map((args, i) => (context: Context) => {
			if (i > 0) capture(context);
			return fauxAssistantMessage([fauxToolCall("subagent", args)], { stopReason: "toolUse" });
		}),
		(context: Context) => (capture(context), fauxAssistantMessage("done")),
	]);
	await t.session.prompt("what did the watchdog find?");
	return results;
}

describe("history in a Pi session", () => {
	it("the command lists this project's events, filters them, and answers --json", async () => {
		const t = await startSession();
		try {
			const session = appendEvents(t);
			const [listing] = await t.command("/subagents-watchdog history");
			expect(listing.level).toBe("info");
			const lines = listing.message.split("\n");
			expect(lines[0]).toBe(`Watchdog history in this project (${t.cwd}): 3 events, newest first`);
			expect(lines[1]).toMatch(
				/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}finding {2}main {4}low\/concern · mul has no test → shown to you$/,
			);
			expect(lines[2]).toMatch(
				/finding {2}lsp {5}high\/blocker · src\/mul\.ts:2 Cannot find name 'y' → sent to the agent$/,
			);
			expect(lines[3]).toMatch(
				/review {3}review {2}boundary · faux-reviewer\/reviewer-model · findings · 2 paths · 2\.5 s · 1,200 tokens · \$0\.0020$/,
			);
			expect(listing.message).not.toContain("elsewhere");

			const [json] = await t.command("/subagents-watchdog history --session current --source lsp --json");
			expect(json.message.split("\n").map((l) => JSON.parse(l))).toEqual([
				{
					at: expect.any(String),
					session,
					cwd: t.cwd,
					kind: "finding",
					source: "lsp",
					importance: "high",
					severity: "blocker",
					summary: "src/mul.ts:2 Cannot find name 'y'",
					evidence: "const x = y * 2;",
					fate: "sent to the agent",
				},
			]);

			const [other] = await t.command("/subagents-watchdog history --session another-session --limit 1");
			expect(other.message).toMatch(
				/^Watchdog history in session another-session: 1 event, newest first \(the newest 1; --limit shows more\)\n.*elsewhere → sent to the agent$/,
			);

			const [bad] = await t.command("/subagents-watchdog history --since tomorrow");
			expect(bad).toEqual({
				level: "error",
				message: expect.stringMatching(/^Watchdog: --since tomorrow is neither a duration/),
			});
		} finally {
			await t.dispose();
		}
	});

	it("the subagent tool's watchdog.history answers the agent, and a bad field is a tool error", async () => {
		const t = await startSession();
		try {
			appendEvents(t);
			const results = await toolCalls(t, [
				{ action: "watchdog.history", since: "24h", source: "lsp,review" },
				{ action: "watchdog.history", session: "current", limit: 1, json: true },
				{ action: "watchdog.history", since: "soon" },
			]);
			expect(results).toHaveLength(3);
			expect(results[0].isError).toBe(false);
			expect(results[0].text.split("\n")).toEqual([
				`Watchdog history in this project (${t.cwd}) in the last 24h from lsp, review: 2 events, newest first`,
				expect.stringMatching(/ finding {2}lsp {5}high\/blocker · src\/mul\.ts:2/),
				expect.stringMatching(/ review {3}review {2}boundary · faux-reviewer/),
			]);
			expect(JSON.parse(results[1].text)).toMatchObject({ kind: "finding", summary: "mul has no test" });
			expect(results[2]).toEqual({ isError: true, text: expect.stringMatching(/--since soon is neither a duration/) });
		} finally {
			await t.dispose();
		}
	});
});
