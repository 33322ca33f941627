// Pi's own session files: a fixture written by hand, and a file a real Pi session wrote.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import type { ToolCallRecord } from "../../../src/transcript/tool-call.ts";
import { fromPiToolCall } from "../../../src/scan/read-session.ts";
import { startSession } from "../../support/pi-session.ts";
import { tempDir } from "../../support/temp.ts";
import { assistant, call, prompt, readAll, writeSessionFile } from "../../support/session-files.ts";

const entry = (id: string, message: Record<string, unknown>) => ({
	type: "message",
	id,
	parentId: null,
	timestamp: "2026-01-01T00:00:00.000Z",
	message,
});
const asks = (id: string, blocks: unknown[]) =>
	entry(id, { role: "assistant", content: blocks, stopReason: "toolUse" });
const toolCall = (id: string, name: string, args: Record<string, unknown>) => ({
	type: "toolCall",
	id,
	name,
	arguments: args,
});
const result = (id: string, toolCallId: string, toolName: string, text: string, isError = false, details?: unknown) =>
	entry(id, {
		role: "toolResult",
		toolCallId,
		toolName,
		content: [{ type: "text", text }],
		isError,
		...(details ? { details } : {}),
	});

describe("Pi session files", () => {
	it("reads prompts, visible assistant text and paired calls in order", async () => {
		const path = writeSessionFile("session.jsonl", [
			{ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/repo" },
			{ type: "model_change", id: "m", parentId: null, timestamp: "t", provider: "faux", modelId: "x" },
			entry("u1", { role: "user", content: [{ type: "text", text: "Fix the parser" }] }),
			asks("a1", [
				{ type: "thinking", thinking: "hidden reasoning" },
				{ type: "text", text: "Reading it in two parts." },
				toolCall("c1", "read", { path: "src/parser.ts", offset: 1, limit: 200 }),
				toolCall("c2", "read", { path: "src/parser.ts", offset: 201, limit: 200 }),
			]),
			result("r1", "c1", "read", "first part"),
			result("r2", "c2", "read", "second part"),
			asks("a2", [toolCall("c3", "bash", { command: "npm test" })]),
			result("r3", "c3", "bash", "1 failed\n\nCommand exited with code 1", true),
			{ type: "custom", customType: "watchdog-scope", data: {}, id: "x1", parentId: null, timestamp: "t" },
			asks("a3", [toolCall("c4", "edit", { path: "src/parser.ts", edits: [{ oldText: "a", newText: "b" }] })]),
			result("r4", "c4", "edit", "Successfully replaced 1 block(s) in src/parser.ts.", false, {
				diff: "-1 a\n+1 b",
				firstChangedLine: 1,
			}),
			asks("a4", [
				toolCall("c5", "subagent", { action: "status" }),
				toolCall("c6", "grep", { pattern: "parse\\(", path: "src" }),
			]),
			result("r5", "c5", "subagent", "1 running"),
			result("r6", "c6", "grep", "src/parser.ts:3: parse("),
			{
				type: "compaction",
				id: "k",
				parentId: null,
				timestamp: "t",
				summary: "earlier work",
				firstKeptEntryId: "u1",
				tokensBefore: 1,
			},
			entry("u2", { role: "user", content: "Now run the tests again" }),
			asks("a5", [toolCall("c7", "write", { path: "notes.md", content: "done" })]),
			result("r7", "c7", "write", "Wrote notes.md"),
			entry("a6", { role: "assistant", content: [{ type: "text", text: "All fixed." }], stopReason: "stop" }),
		]);
		const { session, events } = await readAll(path);
		expect(session.format).toBe("pi");
		expect(events).toStrictEqual([
			prompt("Fix the parser"),
			assistant("Reading it in two parts."),
			call({
				index: 0,
				name: "read",
				kind: "read",
				args: { path: "src/parser.ts", offset: 1, limit: 200 },
				path: "src/parser.ts",
				offset: 1,
				limit: 200,
				result: "first part",
			}),
			call({
				index: 1,
				name: "read",
				kind: "read",
				args: { path: "src/parser.ts", offset: 201, limit: 200 },
				path: "src/parser.ts",
				offset: 201,
				limit: 200,
				result: "second part",
			}),
			call({
				index: 2,
				name: "bash",
				kind: "bash",
				args: { command: "npm test" },
				command: "npm test",
				result: "1 failed\n\nCommand exited with code 1",
				isError: true,
			}),
			call({
				index: 3,
				name: "edit",
				kind: "edit",
				args: { path: "src/parser.ts", edits: [{ oldText: "a", newText: "b" }] },
				path: "src/parser.ts",
				result: "Successfully replaced 1 block(s) in src/parser.ts.",
				changed: true,
			}),
			call({ index: 4, name: "subagent", kind: "poll", args: { action: "status" }, result: "1 running" }),
			call({
				index: 5,
				name: "grep",
				kind: "search",
				args: { pattern: "parse\\(", path: "src" },
				path: "src",
				pattern: "parse\\(",
				result: "src/parser.ts:3: parse(",
			}),
			// The compaction entry is read as a compaction (the loop detector counts them).
			{ type: "compaction" },
			prompt("Now run the tests again"),
			call({
				index: 6,
				name: "write",
				kind: "write",
				args: { path: "notes.md", content: "done" },
				path: "notes.md",
				result: "Wrote notes.md",
				changed: true,
			}),
			assistant("All fixed."),
		]);
		expect(session.stats).toMatchObject({ malformed: 0, calls: 7, unanswered: 0, orphanResults: 0 });
	});

	it("counts an edit whose recorded diff is empty as no change", async () => {
		const path = writeSessionFile("session.jsonl", [
			{ type: "session", version: 3, id: "s1", timestamp: "t", cwd: "/repo" },
			asks("a1", [toolCall("c1", "edit", { path: "a.ts", edits: [] })]),
			result("r1", "c1", "edit", "No changes made to a.ts.", false, { diff: "" }),
		]);
		const { events } = await readAll(path);
		expect(events).toMatchObject([{ type: "call", call: { kind: "edit", changed: false } }]);
	});

	it("reads the file a real Pi session wrote into the same records as the live tool results", async () => {
		const cwd = tempDir();
		writeFileSync(join(cwd, "a.txt"), "one\ntwo\nthree\n");
		const t = await startSession({
			cwd,
			sessionManager: SessionManager.create(cwd, tempDir()),
			tools: ["read", "write", "edit", "bash", "ls"],
		});
		const step = (name: string, args: Record<string, unknown>) =>
			fauxAssistantMessage([fauxToolCall(name, args as Parameters<typeof fauxToolCall>[1])], { stopReason: "toolUse" });
		t.main.setResponses([
			step("read", { path: "a.txt", offset: 2, limit: 1 }),
			step("bash", { command: "echo nope; exit 3" }),
			step("edit", { path: "a.txt", edits: [{ oldText: "two", newText: "TWO" }] }),
			step("edit", { path: "a.txt", edits: [{ oldText: "missing", newText: "x" }] }),
			step("ls", { path: "." }),
			fauxAssistantMessage("Done: a.txt says TWO."),
		]);
		const args = new Map<string, unknown>();
		const live: ToolCallRecord[] = [];
		t.session.subscribe((event) => {
			if (event.type === "tool_execution_start") args.set(event.toolCallId, event.args);
			if (event.type === "tool_execution_end")
				live.push(
					fromPiToolCall(
						live.length,
						event.toolName,
						args.get(event.toolCallId),
						event.result?.content,
						event.isError,
						event.result?.details,
					),
				);
		});
		let file: string | undefined;
		try {
			await t.session.prompt("Make line two of a.txt upper case");
			file = t.session.sessionManager.getSessionFile();
		} finally {
			await t.dispose();
		}
		const { session, events } = await readAll(file as string);
		expect(session.format).toBe("pi");
		expect(events[0]).toEqual(prompt("Make line two of a.txt upper case"));
		expect(events.at(-1)).toEqual(assistant("Done: a.txt says TWO."));
		const recorded = events.flatMap((e) => (e.type === "call" ? [e.call] : []));
		expect(recorded).toEqual(live);
		expect(recorded.map((c) => [c.kind, c.isError, c.changed])).toEqual([
			["read", false, undefined],
			["bash", true, undefined],
			["edit", false, true],
			["edit", true, false],
			["list", false, undefined],
		]);
		expect(recorded[0]).toMatchObject({ path: "a.txt", offset: 2, limit: 1 });
		expect(recorded[1].result).toMatch(/nope[\s\S]*exited with code 3/);
	});
});
