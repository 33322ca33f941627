// Session files from other recorders, written here by hand after their formats: Claude Code files
// that open with metadata lines (and line types this reader has never seen), Codex CLI rollouts
// and Gemini CLI session documents. Every one is read, unknown lines skipped and counted.
import { writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { scanSession } from "../../../src/scan/scan-session.ts";
import { findSessionFiles } from "../../../src/scan/find-files.ts";
import { detectFormat } from "../../../src/scan/read-session.ts";
import { readAll, writeText } from "../../support/session-files.ts";

const j = (o: object) => JSON.stringify(o);
const jsonl = (lines: object[]) => `${lines.map(j).join("\n")}\n`;

describe("Claude Code files that open with metadata", () => {
	const meta = [
		{ type: "custom-title", customTitle: "Fix the parser", sessionId: "s1" },
		{ type: "agent-name", agentName: "helper", sessionId: "s1" },
		{ type: "permission-mode", permissionMode: "acceptEdits", sessionId: "s1" },
		{ type: "last-prompt", lastPrompt: "fix the parser", sessionId: "s1" },
		{ type: "mode", mode: "normal", sessionId: "s1" },
		{ type: "some-future-type", whatever: 1, sessionId: "s1" },
		{ type: "tag", tag: "wip", sessionId: "s1" },
	];
	const body = [
		{ type: "user", uuid: "u1", sessionId: "s1", message: { role: "user", content: "fix the parser" } },
		{
			type: "assistant",
			uuid: "a1",
			sessionId: "s1",
			message: {
				id: "m1",
				role: "assistant",
				content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } }],
			},
		},
		{
			type: "user",
			uuid: "u2",
			sessionId: "s1",
			message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "Tests: 3 passed" }] },
		},
		{ type: "future-kind", sessionId: "s1", payloadish: true },
		{
			type: "assistant",
			uuid: "a2",
			sessionId: "s1",
			message: { id: "m2", role: "assistant", content: [{ type: "text", text: "All 3 tests pass." }] },
		},
	];
	it("is recognised however many metadata lines come first, and reads every line type", async () => {
		const path = writeText("meta.jsonl", jsonl([...meta, ...meta, ...body]));
		const { session, events } = await readAll(path);
		expect(session.format).toBe("claude-code");
		expect(events.map((e) => e.type)).toEqual(["prompt", "call", "assistant"]);
		expect(session.stats.otherLines).toBe(2 * meta.length + 1);
		expect(session.stats.malformed).toBe(0);
	});
});

describe("Codex CLI rollouts", () => {
	const line = (type: string, payload: object) => ({ timestamp: "2026-01-01T00:00:00.000Z", type, payload });
	const rollout = [
		line("session_meta", { id: "c1", cwd: "/repo", cli_version: "0.60.0" }),
		line("response_item", {
			type: "message",
			role: "user",
			content: [{ type: "input_text", text: "<environment_context>cwd: /repo</environment_context>" }],
		}),
		line("response_item", {
			type: "message",
			role: "user",
			content: [{ type: "input_text", text: "make the tests pass" }],
		}),
		line("event_msg", { type: "user_message", message: "make the tests pass" }),
		line("turn_context", { model: "gpt-5-codex" }),
		line("response_item", {
			type: "function_call",
			name: "shell",
			arguments: j({ command: ["bash", "-lc", "npm test"], workdir: "/repo" }),
			call_id: "k1",
		}),
		line("response_item", {
			type: "function_call_output",
			call_id: "k1",
			output: j({ output: "Tests: 2 failed, 5 passed", metadata: { exit_code: 1, duration_seconds: 1.2 } }),
		}),
		line("response_item", {
			type: "custom_tool_call",
			name: "apply_patch",
			call_id: "k2",
			input: "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch",
		}),
		line("response_item", { type: "custom_tool_call_output", call_id: "k2", output: "Success. Updated src/a.ts" }),
		line("compacted", { message: "summary of the work so far" }),
		line("response_item", { type: "reasoning", summary: [], encrypted_content: "x" }),
		line("response_item", {
			type: "message",
			role: "assistant",
			content: [{ type: "output_text", text: "Done: all tests pass." }],
		}),
	];
	it("is recognised and read: prompts, shell calls with exit codes, patches, compactions", async () => {
		expect(detectFormat(rollout.slice(0, 2).map(j))).toBe("codex");
		const { session, events } = await readAll(writeText("rollout-1.jsonl", jsonl(rollout)));
		expect(session.format).toBe("codex");
		expect(events.map((e) => e.type)).toEqual(["prompt", "call", "call", "compaction", "assistant"]);
		const [, shell, patch] = events;
		expect(shell).toMatchObject({ call: { kind: "bash", command: "npm test", isError: true } });
		expect(patch).toMatchObject({ call: { kind: "edit", name: "apply_patch", isError: false } });
	});
	it("feeds the detectors: the failing run contradicts the closing claim", async () => {
		const report = await scanSession(writeText("rollout-2.jsonl", jsonl(rollout)));
		expect(report.claims.flagged).toBe(true);
		expect(report.claims.signals[0]?.evidence).toMatch(/call 0 \(`npm test`\)/);
	});
});

describe("Gemini CLI session files", () => {
	const doc = {
		sessionId: "g1",
		projectHash: "ab12",
		startTime: "2026-01-01T00:00:00.000Z",
		lastUpdated: "2026-01-01T00:05:00.000Z",
		messages: [
			{ id: "1", timestamp: "t", type: "user", content: "add a greeting to hello.ts" },
			{
				id: "2",
				timestamp: "t",
				type: "gemini",
				content: "I'll update the file.",
				toolCalls: [
					{
						id: "c1",
						name: "replace",
						args: { file_path: "/repo/hello.ts", old_string: "a", new_string: "b" },
						status: "cancelled",
						result: [{ functionResponse: { id: "c1", name: "replace", response: { error: "cancelled" } } }],
					},
				],
			},
			{ id: "3", timestamp: "t", type: "info", content: "Request cancelled." },
			{ id: "4", timestamp: "t", type: "gemini", content: "I've updated `hello.ts` with the greeting." },
		],
	};
	it("is found in a folder by its name, beside JSON files that are not sessions", () => {
		const dir = dirname(writeText("session-2026-01-01T00-00-abc.json", JSON.stringify(doc)));
		writeFileSync(join(dir, "package.json"), "{}");
		expect(findSessionFiles([dir]).files.map((f) => basename(f))).toEqual(["session-2026-01-01T00-00-abc.json"]);
	});
	it("is recognised pretty-printed and read whole, a cancelled call as refused", async () => {
		const text = JSON.stringify(doc, null, 2);
		expect(detectFormat(text.split("\n").slice(0, 20))).toBe("gemini");
		const { session, events } = await readAll(writeText("session-1.json", text));
		expect(session.format).toBe("gemini");
		expect(events.map((e) => e.type)).toEqual(["prompt", "assistant", "call", "assistant"]);
		expect(session.stats.otherLines).toBe(1);
		const report = await scanSession(writeText("session-2.json", text));
		expect(report.claims.signals.map((s) => `${s.verdict} ${s.kind}`)).toContain("contradicted files-changed");
	});
});
