// `pi-watchdog scan` end to end: the bin, the report and the JSON lines, the exit codes, on
// small sessions in each format that the test writes.
import { describe, expect, it } from "vitest";
import { tempDir } from "../../support/temp.ts";
import { runBin, writeSessionFile, writeText } from "../../support/session-files.ts";

const run = (args: string[]) => runBin(args, { env: { PI_CODING_AGENT_DIR: tempDir("pi-watchdog-agent-") } });

/** A pi-subagents transcript whose agent polls the same status seven times. */
function loopingTranscript(): string {
	let ts = 1;
	const base = () => ({
		version: 1,
		source: "foreground",
		runId: "r1",
		agent: "researcher",
		childIndex: 0,
		cwd: "/repo",
		ts: ts++,
		timestamp: "2026-07-01T10:00:00.000Z",
	});
	const lines: object[] = [
		{
			...base(),
			recordType: "message",
			sourceEventType: "initial_prompt",
			role: "user",
			text: "Wait for the supervisor, then research X.",
			message: { role: "user", content: [{ type: "text", text: "Wait for the supervisor, then research X." }] },
		},
	];
	for (let i = 0; i < 7; i++) {
		lines.push({
			...base(),
			recordType: "message",
			role: "assistant",
			message: {
				role: "assistant",
				content: [{ type: "toolCall", id: `c${i}`, name: "intercom", arguments: { action: "status" } }],
				stopReason: "toolUse",
			},
		});
		lines.push({
			...base(),
			recordType: "message",
			role: "toolResult",
			message: {
				role: "toolResult",
				toolCallId: `c${i}`,
				toolName: "intercom",
				content: [{ type: "text", text: "no new messages" }],
				isError: false,
			},
		});
	}
	return writeSessionFile("looping_transcript.jsonl", lines);
}

/** A Claude Code log with steady, varied work: no loop. */
function steadyClaudeLog(): string {
	const lines: object[] = [
		{
			type: "user",
			uuid: "u0",
			sessionId: "s",
			cwd: "/repo",
			message: { role: "user", content: "Summarise the modules" },
		},
	];
	for (let i = 0; i < 8; i++) {
		lines.push({
			type: "assistant",
			uuid: `a${i}`,
			sessionId: "s",
			message: {
				id: `m${i}`,
				role: "assistant",
				content: [{ type: "tool_use", id: `t${i}`, name: "Read", input: { file_path: `/repo/src/m${i}.ts` } }],
			},
		});
		lines.push({
			type: "user",
			uuid: `r${i}`,
			sessionId: "s",
			message: {
				role: "user",
				content: [{ type: "tool_result", tool_use_id: `t${i}`, content: `export const m${i} = ${i};` }],
			},
		});
	}
	lines.push({
		type: "assistant",
		uuid: "end",
		sessionId: "s",
		message: { id: "mend", role: "assistant", content: [{ type: "text", text: "Eight small modules." }] },
	});
	return writeSessionFile("session.jsonl", lines);
}

/** A Pi session file with two edits. */
function piSession(): string {
	const e = (id: string, parentId: string | null, message: object) => ({
		type: "message",
		id,
		parentId,
		timestamp: "2026-07-01T10:00:00.000Z",
		message,
	});
	return writeSessionFile("2026-07-01_session.jsonl", [
		{ type: "session", version: 3, id: "sess", timestamp: "2026-07-01T10:00:00.000Z", cwd: "/repo" },
		e("1", null, { role: "user", content: "fix it", timestamp: 1 }),
		e("2", "1", {
			role: "assistant",
			content: [{ type: "toolCall", id: "x1", name: "edit", arguments: { path: "a.ts", edits: [] } }],
			stopReason: "toolUse",
		}),
		e("3", "2", {
			role: "toolResult",
			toolCallId: "x1",
			toolName: "edit",
			content: [{ type: "text", text: "Edited a.ts" }],
			isError: false,
			details: { diff: "-a\n+b" },
		}),
		e("4", "3", { role: "assistant", content: [{ type: "text", text: "Fixed." }], stopReason: "stop" }),
	]);
}

describe("pi-watchdog scan", () => {
	it("prints one JSON object per file with the loop signals and their call indices", async () => {
		const files = [loopingTranscript(), steadyClaudeLog(), piSession()];
		const { code, stdout, stderr } = await run(["scan", "--json", ...files]);
		expect(stderr).toBe("");
		expect(code).toBe(0);
		const reports = stdout
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l));
		expect(reports.map((r) => [r.format, r.calls, r.loop.flagged])).toEqual([
			["pi-subagents", 7, true],
			["claude-code", 8, false],
			["pi", 1, false],
		]);
		expect(reports[0].file).toBe(files[0]);
		expect(reports[0].loop.signals[0]).toMatchObject({
			kind: "repeat",
			from: 0,
			to: 6,
			summary: "Same answer from intercom 7 times in a row",
			evidence: expect.stringMatching(/^Call: intercom .*\. Identical answers at calls 0–6/),
		});
		expect(Object.keys(reports[0])).toEqual(["file", "format", "calls", "loop", "claims", "idle", "skippedLines"]);
	});

	it("prints a readable report without --json", async () => {
		const { code, stdout } = await run(["scan", loopingTranscript(), steadyClaudeLog()]);
		expect(code).toBe(0);
		expect(stdout).toMatch(
			/looping_transcript\.jsonl\n {2}format: pi-subagents, 7 tool calls\n {2}loops: \d signal\(s\) \(strongest: repeat, calls 0–6\)\n {4}repeat {3}calls 0–6: Same answer from intercom 7 times in a row\n {13}Call: intercom /,
		);
		expect(stdout).toMatch(/session\.jsonl\n {2}format: claude-code, 8 tool calls\n {2}loops: none found/);
	});

	it("scans the rest and lists an unreadable or unknown file once at the end, exiting 0", async () => {
		const unknown = writeText("notes.txt", "just some text\n");
		const { code, stdout, stderr } = await run(["scan", "--json", "/no/such/file.jsonl", unknown, piSession()]);
		expect(code).toBe(0);
		expect(stderr).toMatch(
			/1 file\(s\) not scanned:\n {2}\/no\/such\/file\.jsonl: cannot read the file \(no such file\)/,
		);
		expect(stderr).toMatch(
			/1 file\(s\) not a recognised session format \(expected a Pi session file, a pi-subagents transcript, Claude Code JSONL or a Claude Code Markdown export\):\n {2}\S*notes\.txt\n/,
		);
		expect(stdout.trim().split("\n")).toHaveLength(1);
	});

	it("with --strict exits 1 when a session was flagged, 0 when none was (a CI gate)", async () => {
		const flagged = await run(["scan", "--json", "--strict", loopingTranscript(), steadyClaudeLog()]);
		expect(flagged.code).toBe(1);
		expect(flagged.stdout.trim().split("\n")).toHaveLength(2);
		const clean = await run(["scan", "--json", "--strict", steadyClaudeLog()]);
		expect(clean.code).toBe(0);
		const plain = await run(["scan", "--json", loopingTranscript()]);
		expect(plain.code).toBe(0);
	});

	it("exits 2 when nothing could be read", async () => {
		const unknown = writeText("notes.txt", "just some text\n");
		const { code, stdout, stderr } = await run(["scan", "/no/such/file.jsonl", unknown]);
		expect(code).toBe(2);
		expect(stderr).toMatch(/no such file/);
		expect(stdout).toMatch(/^Summary: 0 session file\(s\) scanned, 2 not scanned/m);
	});

	it("explains its usage", async () => {
		expect((await run(["--help"])).stdout).toMatch(
			/usage: pi-watchdog scan \[--json\] \[--all\] \[--since AGE\] \[--strict\] \[PATH\.\.\.\]/,
		);
		for (const [args, message] of [
			[["scan", "--bogus"], /unknown option --bogus/],
			[["scan", "--since", "soon"], /--since needs an age like 7d/],
			[["scan", "--all", "x"], /--all scans every Pi session; give it no PATH/],
			[["frobnicate"], /unknown command "frobnicate"/],
		] as const) {
			const bad = await run([...args]);
			expect(bad.code).toBe(2);
			expect(bad.stderr).toMatch(message);
		}
	});
});
