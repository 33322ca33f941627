// One tool call as a ToolCallRecord: kinds across tool namings, fields, bounded results.
import { describe, expect, it } from "vitest";
import type { CallKind } from "../../../src/transcript/tool-call.ts";
import { callKind, makeCallRecord, resultText } from "../../../src/transcript/call-record.ts";
import { fromPiToolCall, RESULT_CHARS } from "../../../src/scan/read-session.ts";

describe("call records", () => {
	it("gives Pi, pi-subagents and Claude tools their kind", () => {
		const cases: Array<[string, Record<string, unknown>, CallKind]> = [
			["read", {}, "read"],
			["Read", {}, "read"],
			["edit", {}, "edit"],
			["Edit", {}, "edit"],
			["MultiEdit", {}, "edit"],
			["write", {}, "write"],
			["Write", {}, "write"],
			["bash", {}, "bash"],
			["Bash", {}, "bash"],
			["grep", {}, "search"],
			["find", {}, "search"],
			["Grep", {}, "search"],
			["Glob", {}, "search"],
			["web_explore", {}, "search"],
			["grep_app_search", {}, "search"],
			["WebSearch", {}, "search"],
			["mcp__tavily__tavily-search", {}, "search"],
			["ls", {}, "list"],
			["LS", {}, "list"],
			["BashOutput", {}, "poll"],
			["TaskOutput", {}, "poll"],
			["intercom", { action: "status" }, "poll"],
			["intercom", { action: "send", message: "hi" }, "other"],
			["Task", {}, "other"],
			["TodoWrite", {}, "other"],
			["", {}, "other"],
		];
		expect(cases.map(([name, args]) => `${name} ${callKind(name, args)}`)).toStrictEqual(
			cases.map(([name, , kind]) => `${name} ${kind}`),
		);
	});

	it("fills the fields detectors use, and only those that apply", () => {
		expect(makeCallRecord(3, "read", { path: "a.ts", offset: "10", limit: 5 }, "text", false)).toStrictEqual({
			index: 3,
			name: "read",
			kind: "read",
			args: { path: "a.ts", offset: "10", limit: 5 },
			path: "a.ts",
			offset: 10,
			limit: 5,
			result: "text",
			isError: false,
		});
		expect(makeCallRecord(0, "NotebookEdit", { notebook_path: "n.ipynb" }, "", true)).toMatchObject({
			kind: "edit",
			path: "n.ipynb",
			changed: false,
		});
		expect(makeCallRecord(0, "Grep", { pattern: "x", offset: 4 }, "", false)).not.toHaveProperty("offset");
		expect(makeCallRecord(0, "bash", "not an object", "", false)).toMatchObject({ args: {}, kind: "bash" });
		expect(makeCallRecord(0, "bash", { command: 42 }, "", false)).not.toHaveProperty("command");
	});

	it("turns a live Pi tool result into the same record, with the diff deciding whether an edit changed anything", () => {
		const content = [
			{ type: "text", text: "Successfully replaced 1 block(s) in a.ts." },
			{ type: "image", data: "…", mimeType: "image/png" },
		];
		expect(
			fromPiToolCall(7, "edit", { path: "a.ts", edits: [] }, content, false, { diff: "-1 a\n+1 b" }),
		).toStrictEqual({
			index: 7,
			name: "edit",
			kind: "edit",
			args: { path: "a.ts", edits: [] },
			path: "a.ts",
			result: "Successfully replaced 1 block(s) in a.ts.",
			isError: false,
			changed: true,
		});
		expect(fromPiToolCall(0, "edit", { path: "a.ts" }, content, false, { diff: "" }).changed).toBe(false);
		expect(fromPiToolCall(0, "edit", { path: "a.ts" }, content, false).changed).toBe(true);
		expect(fromPiToolCall(0, "write", { path: "a.ts" }, [], true).changed).toBe(false);
	});

	it(`keeps the head and the tail of a long result, ${RESULT_CHARS} characters in all`, () => {
		const blocks = [
			{ type: "text", text: "a".repeat(3000) },
			{ type: "image", data: "…", mimeType: "image/png" },
			{ type: "text", text: "b".repeat(3000) },
		];
		expect(resultText(blocks)).toBe(`${"a".repeat(RESULT_CHARS / 2)}\n[…]\n${"b".repeat(RESULT_CHARS / 2)}`);
		expect(resultText("short")).toBe("short");
		expect(
			resultText([
				{ type: "text", text: "x" },
				{ type: "text", text: "y" },
			]),
		).toBe("x\ny");
		expect(resultText(undefined)).toBe("");
	});
});
