// The scan judges lines before parsing them (skipping noise lines by a peek, leaving a tool
// result's duplicated top-level text unparsed). Those shortcuts must never change what scan
// reports: each fixture, in every format, is scanned with them and with every line parsed in
// full, and the reports and event streams must be identical. The fixtures: generated files of
// every format, the scan bench's transcript (smaller), and damaged copies of them (lines cut short,
// bad escapes, raw control characters), so that what the shortcuts leave unparsed is malformed too.
// The real sessions of ../shared/sessions/dev, whole and damaged, are checked the same way by the
// dev-equivalence bench (data outside this repository, so not in the test suite).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateTranscript } from "../../../bench/scan-transcript.ts";
import { lineShortcuts } from "../../../src/scan/session-parser.ts";
import { bothWays, damage } from "../../support/scan-both-ways.ts";
import { seededRandom } from "../../support/seeded-random.ts";
import { writeSessionFile, writeText } from "../../support/session-files.ts";
import { tempDir } from "../../support/temp.ts";

afterEach(() => {
	lineShortcuts.enabled = true;
});

/** Text with what makes a JSON string hard: quotes, backslashes, escapes, newlines, non-ASCII, braces. */
function awkwardText(rand: () => number, length: number): string {
	const pieces = [
		'"',
		"\\",
		"\\n",
		"\n",
		"\t",
		"{",
		"}",
		"[",
		"]",
		'"text":"',
		"é",
		"😀",
		"\u0001",
		"PASS (3) FAIL (1)",
		"Command exited with code 1",
		"ok ",
		"2026-07-01T10:00:00Z ",
		"12 ms ",
	];
	let s = "";
	while (s.length < length)
		s += rand() < 0.6 ? "word ".repeat(1 + Math.floor(rand() * 8)) : pieces[Math.floor(rand() * pieces.length)];
	return s;
}

let ts = 1_780_000_000_000;
const envelope = (extra: Record<string, unknown>) => ({
	version: 1,
	recordType: "message",
	source: "foreground",
	runId: "ab12cd34",
	agent: "builder",
	childIndex: 0,
	cwd: "/repo",
	ts: ts++,
	timestamp: "2026-07-01T10:00:00.000Z",
	sourceEventType: "message_end",
	...extra,
});

function subagentsLines(seed: number): Array<object | string> {
	const rand = seededRandom(seed);
	const lines: Array<object | string> = [
		envelope({
			sourceEventType: "initial_prompt",
			role: "user",
			text: "Fix the build.",
			message: { role: "user", content: [{ type: "text", text: "Fix the build." }] },
		}),
	];
	const tools = ["read", "bash", "grep", "edit"];
	for (let turn = 0; turn < 120; turn++) {
		// A stretch of one call over and over first, so the loop detector has something to find.
		const name = turn < 10 ? "read" : tools[Math.floor(rand() * tools.length)];
		const id = `functions.${name}:${turn}`;
		const args =
			turn < 10
				? { path: "src/loop.ts" }
				: name === "bash"
					? { command: rand() < 0.5 ? "npm test" : "git status" }
					: { path: `src/f${Math.floor(rand() * 4)}.ts` };
		lines.push(
			envelope({
				role: "assistant",
				message: {
					role: "assistant",
					content: [
						{ type: "text", text: awkwardText(rand, 40) },
						{ type: "toolCall", id, name, arguments: args },
					],
					stopReason: "toolUse",
				},
			}),
		);
		lines.push({
			...envelope({ recordType: "tool_start", sourceEventType: "tool_execution_start" }),
			toolName: name,
			argsPreview: "x",
		});
		// The same output often, so the loop detector has something to find.
		const text =
			turn < 10 || rand() < 0.5 ? "same output every time ".repeat(20) : awkwardText(rand, Math.floor(rand() * 3000));
		const isError = rand() < 0.2;
		const details =
			name === "edit"
				? { diff: rand() < 0.7 ? "-a\n+b" : "" }
				: name === "bash" && rand() < 0.6
					? truncationDetails(rand, text)
					: undefined;
		const message = {
			role: "toolResult",
			toolCallId: id,
			toolName: name,
			content: [{ type: "text", text }],
			isError,
			...(details ? { details } : {}),
		};
		const shape = rand();
		if (details && "truncation" in details && shape < 0.15)
			lines.push(brokenTruncation(rand, JSON.stringify(envelope({ role: "toolResult", text, message })), text));
		else if (shape < 0.7) lines.push(envelope({ role: "toolResult", text, message }));
		else if (shape < 0.8)
			lines.push({ ...envelope({ role: "toolResult", message }), text }); // text after the message
		else if (shape < 0.9)
			lines.push(envelope({ cwd: "/repo/{odd}[dir]", role: "toolResult", text, message })); // a brace before the text
		else
			lines.push(
				JSON.stringify(envelope({ role: "toolResult", text, message })).replace('"text":"', '"text":"bad \\x escape '),
			); // malformed inside the skipped text
	}
	lines.push(
		envelope({
			role: "assistant",
			message: { role: "assistant", content: [{ type: "text", text: "Done: all tests pass." }], stopReason: "stop" },
		}),
	);
	return lines;
}

/**
 * Pi's bash details: the shown text again in truncation.content, as the whole text, a start of
 * it, or something else.
 */
function truncationDetails(rand: () => number, text: string): Record<string, unknown> {
	const w = rand();
	const content = w < 0.4 ? text : w < 0.8 ? text.slice(0, Math.floor(text.length * rand())) : awkwardText(rand, 600);
	return {
		truncation: { content, truncated: true, truncatedBy: "bytes", totalLines: 9000 },
		fullOutputPath: "/tmp/pi-bash-1.log",
	};
}

/**
 * A line whose truncation copy is broken by hand: a bad escape, or the text's raw JSON cut
 * just after a backslash (so the copy's closing quote is escaped).
 */
function brokenTruncation(rand: () => number, line: string, text: string): string {
	const key = '"truncation":{"content":"';
	if (rand() < 0.5) return line.replace(key, `${key}bad \\x escape `);
	const raw = JSON.stringify(text).slice(1, -1);
	const cut = raw.indexOf("\\", raw.length >> 1);
	const at = line.indexOf(key) + key.length;
	const end = line.indexOf('","', at);
	return cut === -1 || end === -1 ? line : line.slice(0, at) + raw.slice(0, cut + 1) + line.slice(end);
}

function piLines(seed: number): Array<object | string> {
	const rand = seededRandom(seed);
	const lines: Array<object | string> = [
		{ type: "session", version: 3, id: "s1", timestamp: "2026-07-01T10:00:00.000Z", cwd: "/repo" },
	];
	let parent: string | null = null;
	const entry = (message: Record<string, unknown>) => {
		const id = `e${lines.length}`;
		const e = { type: "message", id, parentId: parent, timestamp: "2026-07-01T10:00:00.000Z", message };
		parent = id;
		return e;
	};
	lines.push(entry({ role: "user", content: [{ type: "text", text: "Make the tests pass." }] }));
	for (let turn = 0; turn < 80; turn++) {
		const id = `call_${turn}`;
		lines.push(
			entry({
				role: "assistant",
				content: [{ type: "toolCall", id, name: "bash", arguments: { command: rand() < 0.6 ? "npm test" : "ls" } }],
			}),
		);
		if (rand() < 0.1)
			lines.push({ type: "model_change", id: `m${turn}`, parentId: parent, provider: "p", modelId: "m" });
		if (rand() < 0.05) lines.push("{not json");
		const text = rand() < 0.6 ? "FAIL (1)" : awkwardText(rand, 800);
		const details = rand() < 0.5 ? truncationDetails(rand, text) : undefined;
		const result = entry({
			role: "toolResult",
			toolCallId: id,
			toolName: "bash",
			content: [{ type: "text", text }],
			isError: rand() < 0.3,
			...(details ? { details } : {}),
		});
		lines.push(details && rand() < 0.2 ? brokenTruncation(rand, JSON.stringify(result), text) : result);
	}
	return lines;
}

function claudeLines(seed: number): Array<object | string> {
	const rand = seededRandom(seed);
	const base = { sessionId: "c1", cwd: "/repo", version: "2.0.0", isSidechain: false };
	const lines: Array<object | string> = [
		{ ...base, type: "user", uuid: "u0", message: { role: "user", content: "Fix the lint errors." } },
	];
	for (let turn = 0; turn < 80; turn++) {
		const id = `toolu_${turn}`;
		lines.push({
			...base,
			type: "assistant",
			uuid: `a${turn}`,
			message: {
				id: `msg_${turn}`,
				role: "assistant",
				content: [{ type: "tool_use", id, name: "Bash", input: { command: "npm run lint" } }],
			},
		});
		if (rand() < 0.3)
			lines.push({ ...base, type: "progress", uuid: `p${turn}`, data: { text: awkwardText(rand, 500) } });
		const text = rand() < 0.6 ? "3 problems" : awkwardText(rand, 600);
		lines.push({
			...base,
			type: "user",
			uuid: `r${turn}`,
			message: {
				role: "user",
				content: [{ type: "tool_result", tool_use_id: id, content: text, is_error: rand() < 0.2 }],
			},
			toolUseResult: { stdout: text, stderr: "", interrupted: false },
		});
	}
	return lines;
}

function exportText(): string {
	const section = (role: string, body: unknown) =>
		`### ${role}\n> 11/30/2025, 11:10:00 PM\n\n${typeof body === "string" ? body : JSON.stringify(body, null, 2)}\n\n---\n\n`;
	let s = `# Claude Session Export\n\n## Conversation\n\n${section("User", "Fix it.")}`;
	for (let i = 0; i < 12; i++) {
		s += section("Assistant", [{ type: "tool_use", id: `t${i}`, name: "Bash", input: { command: "npm test" } }]);
		s += section("User", [{ tool_use_id: `t${i}`, type: "tool_result", content: "FAIL (1)" }]);
	}
	return s;
}

describe("scan's line shortcuts change nothing", () => {
	const cases: Array<[string, () => string]> = [
		["pi-subagents", () => writeSessionFile("run_transcript.jsonl", subagentsLines(1))],
		["pi-subagents (another seed)", () => writeSessionFile("run_transcript.jsonl", subagentsLines(2))],
		["pi", () => writeSessionFile("session.jsonl", piLines(3))],
		["claude-code", () => writeSessionFile("claude.jsonl", claudeLines(4))],
		["claude-export", () => writeText("export.md", exportText())],
	];
	for (const [name, make] of cases) {
		it(`gives the same report and events with and without them: ${name}`, async () => {
			const { fast, full } = await bothWays(make());
			expect(JSON.stringify(fast.report)).toBe(JSON.stringify(full.report));
			expect(fast.events).toEqual(full.events);
			expect(fast.report.calls).toBeGreaterThan(0);
		});
	}

	it("the pi-subagents fixture exercises both the shortcut and its fallbacks", async () => {
		const { fast } = await bothWays(writeSessionFile("run_transcript.jsonl", subagentsLines(1)));
		expect(fast.report.skippedLines).toBeGreaterThan(0); // the bad escape inside the skipped text is still caught
		expect(fast.report.loop.signals.length).toBeGreaterThan(0);
	});

	it("gives the same report and events with and without them: the scan bench's transcript, whole and damaged", async () => {
		const dir = tempDir("pi-watchdog-scan-bench-");
		const whole = join(dir, "run_transcript.jsonl");
		const g = generateTranscript(whole, 3_000_000);
		const damaged = writeText("damaged_transcript.jsonl", damage(readFileSync(whole, "utf8"), seededRandom(7)), dir);
		for (const path of [whole, damaged]) {
			const { fast, full } = await bothWays(path);
			expect(JSON.stringify(fast.report)).toBe(JSON.stringify(full.report));
			expect(fast.events).toEqual(full.events);
			if (path === whole) expect([fast.report.calls, fast.report.skippedLines]).toEqual([g.calls, 0]);
			else expect(fast.report.skippedLines).toBeGreaterThan(10);
		}
	});

	it("a malformed noise line (here tool_start) is skipped unread, so it is not counted: the one known difference", async () => {
		const good = subagentsLines(5);
		const broken = good.map((line) =>
			typeof line === "object" && (line as { recordType?: string }).recordType === "tool_start"
				? JSON.stringify(line).slice(0, 60)
				: line,
		);
		const { fast, full } = await bothWays(writeSessionFile("run_transcript.jsonl", broken));
		expect(full.report.skippedLines - fast.report.skippedLines).toBe(120);
		expect({ ...fast.report, file: "", skippedLines: 0 }).toEqual({ ...full.report, file: "", skippedLines: 0 });
	});
});
