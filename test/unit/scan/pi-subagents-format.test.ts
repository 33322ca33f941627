// pi-subagents child transcripts: the initial prompt line, Pi messages, tool_start/tool_end noise.
import { describe, expect, it } from "vitest";
import { assistant, call, prompt, readAll, writeSessionFile } from "../../support/session-files.ts";

let ts = 1_780_000_000_000;
const base = () => ({
	version: 1,
	source: "foreground",
	runId: "ab12cd34",
	agent: "builder",
	childIndex: 0,
	cwd: "/repo",
	ts: ts++,
	timestamp: "2026-07-01T10:00:00.000Z",
});
const msg = (role: string, message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
	...base(),
	recordType: "message",
	sourceEventType: "message_end",
	role,
	...extra,
	message: { role, ...message },
});
const toolCall = (id: string, name: string, args: Record<string, unknown>) => ({
	type: "toolCall",
	id,
	name,
	arguments: args,
});
const asks = (...blocks: unknown[]) =>
	msg("assistant", { content: blocks, stopReason: "toolUse" }, { stopReason: "toolUse", model: "kimi" });
const result = (toolCallId: string, toolName: string, text: string, isError = false, details?: unknown) =>
	msg(
		"toolResult",
		{ toolCallId, toolName, content: [{ type: "text", text }], isError, ...(details ? { details } : {}) },
		{ text },
	);
const start = (toolName: string, argsPreview: string) => ({
	...base(),
	recordType: "tool_start",
	sourceEventType: "tool_execution_start",
	toolName,
	argsPreview,
});
const end = (toolName: string) => ({
	...base(),
	recordType: "tool_end",
	sourceEventType: "tool_execution_end",
	toolName,
});

const TASK = "Add a --json flag to the CLI.\n\n## Acceptance Contract\nReply with an acceptance-report block.";

describe("pi-subagents transcripts", () => {
	it("takes the prompt from the initial_prompt line and pairs toolCall/toolResult messages", async () => {
		const path = writeSessionFile("run_transcript.jsonl", [
			{
				...base(),
				recordType: "message",
				sourceEventType: "initial_prompt",
				role: "user",
				text: TASK,
				message: { role: "user", content: [{ type: "text", text: TASK }] },
			},
			msg("user", { content: [{ type: "text", text: `Task: ${TASK}` }] }),
			msg("custom", { customType: "copy-turn", content: "copy user: /cp 1a2b3c", display: true }),
			asks(
				{ type: "thinking", thinking: "\u001b[38;2;1;2;3mThinking:\u001b[39m plan" },
				{ type: "text", text: " " },
				toolCall("functions.read:0", "read", { path: "src/cli.ts", offset: 1, limit: 120 }),
			),
			start("read", "src/cli.ts"),
			end("read"),
			result("functions.read:0", "read", "export function main() {}"),
			// Kimi numbers its ids per turn, so the same id comes back in a later turn.
			asks(
				toolCall("functions.read:0", "read", { path: "src/cli.ts", offset: 121, limit: 120 }),
				toolCall("functions.intercom:1", "intercom", { action: "status" }),
			),
			start("read", "src/cli.ts"),
			start("intercom", "status"),
			end("intercom"),
			end("read"),
			result("functions.read:0", "read", "  return 0;"),
			result("functions.intercom:1", "intercom", "supervisor: no new messages"),
			asks(toolCall("call_9f", "bash", { command: "npx vitest run | tail -5", timeout: 120 })),
			result("call_9f", "bash", "FAIL (1)\n\nCommand exited with code 1", true, { truncation: null }),
			msg("user", {
				content: [{ type: "text", text: "Tool budget soft limit reached after 4 tool calls. Finalize now." }],
			}),
			asks(
				toolCall("functions.edit:0", "edit", {
					path: "src/cli.ts",
					edits: [{ oldText: "main() {}", newText: "main(json) {}" }],
				}),
			),
			result("functions.edit:0", "edit", "Successfully replaced 1 block(s) in src/cli.ts.", false, {
				diff: "-1 main() {}\n+1 main(json) {}",
				firstChangedLine: 1,
			}),
			asks(toolCall("functions.web_explore:0", "web_explore", { query: "commander json flag" })),
			result("functions.web_explore:0", "web_explore", "No usable evidence"),
			msg(
				"assistant",
				{ content: [{ type: "text", text: "Added the flag.\n```acceptance-report\n{}\n```" }], stopReason: "stop" },
				{ text: "Added the flag." },
			),
			{ ...base(), recordType: "stderr", text: 'Warning: Extension "copy-turn" exists in both places' },
		]);
		const { session, events } = await readAll(path);
		expect(session.format).toBe("pi-subagents");
		expect(events).toStrictEqual([
			prompt(TASK),
			call({
				index: 0,
				name: "read",
				kind: "read",
				args: { path: "src/cli.ts", offset: 1, limit: 120 },
				path: "src/cli.ts",
				offset: 1,
				limit: 120,
				result: "export function main() {}",
			}),
			call({
				index: 1,
				name: "read",
				kind: "read",
				args: { path: "src/cli.ts", offset: 121, limit: 120 },
				path: "src/cli.ts",
				offset: 121,
				limit: 120,
				result: "  return 0;",
			}),
			call({
				index: 2,
				name: "intercom",
				kind: "poll",
				args: { action: "status" },
				result: "supervisor: no new messages",
			}),
			call({
				index: 3,
				name: "bash",
				kind: "bash",
				args: { command: "npx vitest run | tail -5", timeout: 120 },
				command: "npx vitest run | tail -5",
				result: "FAIL (1)\n\nCommand exited with code 1",
				isError: true,
			}),
			call({
				index: 4,
				name: "edit",
				kind: "edit",
				args: { path: "src/cli.ts", edits: [{ oldText: "main() {}", newText: "main(json) {}" }] },
				path: "src/cli.ts",
				result: "Successfully replaced 1 block(s) in src/cli.ts.",
				changed: true,
			}),
			call({
				index: 5,
				name: "web_explore",
				kind: "search",
				args: { query: "commander json flag" },
				pattern: "commander json flag",
				result: "No usable evidence",
			}),
			assistant("Added the flag.\n```acceptance-report\n{}\n```"),
		]);
		expect(session.stats).toMatchObject({ malformed: 0, calls: 6, unanswered: 0, orphanResults: 0, repeatedIds: 1 });
	});

	it("emits a call cut off by the harness at the end, with an empty result", async () => {
		const path = writeSessionFile("run_transcript.jsonl", [
			{
				...base(),
				recordType: "message",
				sourceEventType: "initial_prompt",
				role: "user",
				text: "Go",
				message: { role: "user", content: [{ type: "text", text: "Go" }] },
			},
			asks(toolCall("functions.bash:0", "bash", { command: "git status" })),
			start("bash", "git status"),
		]);
		const { session, events } = await readAll(path);
		expect(events).toStrictEqual([
			prompt("Go"),
			call({
				index: 0,
				name: "bash",
				kind: "bash",
				args: { command: "git status" },
				command: "git status",
				result: "",
			}),
		]);
		expect(session.stats.unanswered).toBe(1);
	});
});
