// `pi-watchdog scan` fills `claims` and `idle` in every format the project reads: a session
// whose closing message claims a file it never wrote (its write was refused) and whose later
// stop is empty carries both, beside `loop`; a clean one carries neither.
import { describe, expect, it } from "vitest";
import { reportText, scanSession } from "../../../src/scan/scan-session.ts";
import { summaryText } from "../../../src/scan/summary.ts";
import { writeSessionFile, writeText } from "../../support/session-files.ts";

const REFUSAL = "Permission denied: the user has not granted write access to NOTES.md";
const CLAIM = "I've created NOTES.md with the summary.";

/** Pi's own session file (version 3). */
function piSession(final: string): string {
	let id = 0;
	const entry = (message: object) => ({
		type: "message",
		id: `e${++id}`,
		parentId: id > 1 ? `e${id - 1}` : null,
		timestamp: "2026-07-01T10:00:00.000Z",
		message,
	});
	return writeSessionFile("session.jsonl", [
		{ type: "session", version: 3, id: "s1", timestamp: "2026-07-01T10:00:00.000Z", cwd: "/repo" },
		entry({ role: "user", content: [{ type: "text", text: "write the notes" }] }),
		entry({
			role: "assistant",
			content: [{ type: "toolCall", id: "c1", name: "write", arguments: { path: "NOTES.md", content: "x" } }],
			stopReason: "toolUse",
		}),
		entry({
			role: "toolResult",
			toolCallId: "c1",
			toolName: "write",
			content: [{ type: "text", text: REFUSAL }],
			isError: true,
		}),
		entry({ role: "assistant", content: [{ type: "text", text: final }], stopReason: "stop" }),
		entry({ role: "user", content: [{ type: "text", text: "now fix the typo" }] }),
		entry({ role: "assistant", content: [{ type: "thinking", thinking: "the typo is fixed" }], stopReason: "stop" }),
	]);
}

/** A pi-subagents transcript. */
function subagentsTranscript(final: string): string {
	const base = {
		version: 1,
		source: "foreground",
		runId: "r1",
		agent: "builder",
		childIndex: 0,
		cwd: "/repo",
		ts: 1,
		timestamp: "2026-07-01T10:00:00.000Z",
	};
	return writeSessionFile("r1_transcript.jsonl", [
		{
			...base,
			recordType: "message",
			sourceEventType: "initial_prompt",
			role: "user",
			text: "write the notes",
			message: { role: "user", content: [{ type: "text", text: "write the notes" }] },
		},
		{
			...base,
			recordType: "message",
			role: "assistant",
			message: {
				role: "assistant",
				content: [{ type: "toolCall", id: "c1", name: "write", arguments: { path: "NOTES.md", content: "x" } }],
				stopReason: "toolUse",
			},
		},
		{
			...base,
			recordType: "message",
			role: "toolResult",
			message: {
				role: "toolResult",
				toolCallId: "c1",
				toolName: "write",
				content: [{ type: "text", text: REFUSAL }],
				isError: true,
			},
		},
		{
			...base,
			recordType: "message",
			role: "assistant",
			message: { role: "assistant", content: final ? [{ type: "text", text: final }] : [], stopReason: "stop" },
		},
	]);
}

/** A Claude Code project log. */
function claudeLog(final: string): string {
	const common = (uuid: string) => ({
		uuid,
		sessionId: "s1",
		timestamp: "2026-07-01T10:00:00.000Z",
		cwd: "/repo",
		isSidechain: false,
	});
	return writeSessionFile("s1.jsonl", [
		{ ...common("u1"), type: "user", message: { role: "user", content: "write the notes" } },
		{
			...common("a1"),
			type: "assistant",
			message: {
				id: "m1",
				role: "assistant",
				content: [{ type: "tool_use", id: "t1", name: "Write", input: { file_path: "/repo/NOTES.md", content: "x" } }],
			},
		},
		{
			...common("u2"),
			type: "user",
			message: {
				role: "user",
				content: [{ type: "tool_result", tool_use_id: "t1", content: REFUSAL, is_error: true }],
			},
		},
		{
			...common("a2"),
			type: "assistant",
			message: { id: "m2", role: "assistant", content: [{ type: "text", text: final }] },
		},
	]);
}

/** A Claude Code Markdown export. */
function claudeExport(final: string): string {
	const section = (role: string, body: unknown) =>
		`### ${role}\n> 2026-07-01 10:00\n\n${typeof body === "string" ? body : JSON.stringify(body)}\n\n---\n`;
	return writeText(
		"export.md",
		[
			"# Claude Session Export\n",
			section("User", "write the notes"),
			section("Assistant", [
				{ type: "tool_use", id: "t1", name: "Write", input: { file_path: "/repo/NOTES.md", content: "x" } },
			]),
			section("User", [{ type: "tool_result", tool_use_id: "t1", content: REFUSAL, is_error: true }]),
			section("Assistant", [{ type: "text", text: final }]),
		].join("\n"),
	);
}

describe("scan: claims and idle in every format", () => {
	for (const [format, make] of [
		["pi", piSession],
		["pi-subagents", subagentsTranscript],
		["claude-code", claudeLog],
		["claude-export", claudeExport],
	] as const) {
		it(`${format}: a claimed file whose write was refused`, async () => {
			const report = await scanSession(make(CLAIM));
			expect(report.format).toBe(format);
			expect(report.claims.flagged).toBe(true);
			expect(report.claims.signals[0]).toMatchObject({
				kind: "files-changed",
				claim: CLAIM,
				from: 0,
				to: 0,
				verdict: "contradicted",
			});
			expect(report.claims.signals[0]?.evidence).toMatch(/NOTES\.md: the \w+ at call 0 was refused/);
			const json = JSON.parse(JSON.stringify(report));
			expect(Object.keys(json)).toEqual(["file", "format", "calls", "loop", "claims", "idle", "skippedLines"]);
			expect(reportText(report)).toMatch(
				/claims: \d contradicted by the log \(strongest: files-changed, calls 0–0\)\n {4}FALSE {4}calls 0–0: "I've created NOTES\.md/,
			);
		});
	}

	it("pi: one session carries claims and an unfinished stop (the later prompt's result only in reasoning)", async () => {
		const report = await scanSession(piSession(CLAIM));
		expect(report.claims.flagged).toBe(true);
		expect(report.idle).toMatchObject({ flagged: true, kind: "hidden-result", at: 0 });
		expect(reportText(report)).toMatch(/idle: unfinished stop \(hidden-result\)/);
		expect(summaryText([report], [], 0)).toMatch(/claims: 1 flagged.*\n {2}idle: {3}1 flagged/);
	});

	it("pi-subagents: an empty final message is an unfinished stop; an honest report is neither", async () => {
		expect((await scanSession(subagentsTranscript(""))).idle).toMatchObject({ flagged: true, kind: "empty", at: 0 });
		const honest = await scanSession(
			subagentsTranscript(
				"I could not create NOTES.md: writing it was refused (permission denied). Nothing was written.",
			),
		);
		expect(honest.claims).toEqual({ flagged: false, signals: [] });
		expect(honest.idle).toEqual({ flagged: false });
		expect(reportText(honest)).toMatch(/claims: nothing the log contradicts\n {2}idle: finished properly/);
	});

	it("claude-code: a sign-off is listed, not flagged", async () => {
		const report = await scanSession(
			claudeLog(
				"NOTES.md needs write access. Can you grant the permission, or should I publish the notes somewhere else?",
			),
		);
		expect(report.idle).toMatchObject({ flagged: false, kind: "sign-off" });
	});
});
