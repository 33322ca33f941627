// The record of the run the reviewer reads: each result under its own call, long results with
// their end, the user's prompt once, edits and writes as a person reads them. Pure.
import { describe, expect, it } from "vitest";
import { renderTurnDelta } from "../../../src/review/turn-delta.ts";
import { headAndTail, thousands } from "../../../src/util/index.ts";

const user = (content: string) => ({ type: "message", message: { role: "user", content } });
const calls = (...blocks: Array<Record<string, unknown>>) => ({
	type: "message",
	message: { role: "assistant", content: blocks },
});
const call = (id: string, name: string, args: Record<string, unknown>) => ({
	type: "toolCall",
	id,
	name,
	arguments: args,
});
const result = (id: string, toolName: string, text: string, extra: Record<string, unknown> = {}) => ({
	type: "message",
	message: { role: "toolResult", toolCallId: id, toolName, content: [{ type: "text", text }], ...extra },
});

describe("turn delta", () => {
	it("renders the run without the model's hidden reasoning", () => {
		const delta = renderTurnDelta(
			[
				user("fix the bug"),
				calls(
					{ type: "thinking", thinking: "SECRET PLAN" },
					{ type: "text", text: "On it." },
					call("c1", "bash", { command: "npm test" }),
				),
				result("c1", "bash", "exit 1", { isError: true }),
				{ type: "custom_message", customType: "watchdog-finding", content: "earlier finding" },
				{ type: "custom", customType: "watchdog-note" },
			],
			"watchdog-finding",
		);
		expect(delta).not.toContain("SECRET PLAN");
		expect(delta).toContain("[User]\nfix the bug");
		expect(delta).toContain("[Agent]\nOn it.");
		expect(delta).toContain("[Tool call] bash\n$ npm test\n[Tool result, error]\nexit 1");
		expect(delta).toContain("[Watchdog finding delivered to the agent]\nearlier finding");
	});

	it("puts each result of parallel calls right under its own call, whatever order they came in", () => {
		const delta = renderTurnDelta(
			[
				calls(
					call("a", "read", { path: "one.ts" }),
					call("b", "grep", { pattern: "TODO", path: "src" }),
					call("c", "read", { path: "three.ts" }),
				),
				result("b", "grep", "src/x.ts:3: TODO fix"),
				result("c", "read", "THREE"),
				result("a", "read", "ONE"),
			],
			"watchdog-finding",
		);
		expect(delta).toBe(
			[
				"[Tool call] read one.ts\n[Tool result]\nONE",
				"[Tool call] grep pattern: TODO, path: src\n[Tool result]\nsrc/x.ts:3: TODO fix",
				"[Tool call] read three.ts\n[Tool result]\nTHREE",
			].join("\n\n"),
		);
	});

	it("says when a call has no result, and shows a result whose call came before the record", () => {
		const delta = renderTurnDelta(
			[result("old", "bash", "late output"), calls(call("x", "bash", { command: "sleep 1" }))],
			"watchdog-finding",
		);
		expect(delta).toContain("[Tool call] bash (before this record)\n[Tool result]\nlate output");
		expect(delta).toContain("[Tool call] bash\n$ sleep 1\n[no result recorded]");
	});

	it("keeps the head and the tail of a long result, saying how much was left out", () => {
		const lines = Array.from({ length: 200 }, (_, i) => `ok ${i + 1} - case ${i + 1} passes`);
		const output = [...lines, "# tests 201, pass 200, fail 1"].join("\n");
		const delta = renderTurnDelta(
			[calls(call("t", "bash", { command: "npm test" })), result("t", "bash", output)],
			"watchdog-finding",
		);
		expect(delta).toContain("ok 1 - case 1 passes");
		expect(delta).toMatch(/# tests 201, pass 200, fail 1$/);
		const omitted = Number(delta.match(/\[… ([\d,]+) characters left out …\]/)?.[1].replace(/,/g, ""));
		expect(omitted).toBeGreaterThan(0);
		// What is shown and what is said to be left out add up to the whole output.
		const shown = delta
			.slice(delta.indexOf("[Tool result]\n") + 14)
			.replace(/\n\[… [\d,]+ characters left out …\]\n/, "");
		expect(shown.length + omitted).toBe(output.length);
	});

	it("shows the user's prompt once: the request the input lists is referred to", () => {
		const prompts = ["first request", "Add a clamp helper"];
		const delta = renderTurnDelta([user("Add a clamp helper"), user("and another thing")], "watchdog-finding", {
			prompts,
		});
		expect(delta).toContain('[User] (request 2 under "What the user asked", above)');
		expect(delta).not.toContain("Add a clamp helper");
		expect(delta).toContain("[User]\nand another thing");
	});

	it("shows an edit as its path and diff, its replacements only when the result has no diff, never as JSON", () => {
		const edits = { path: "src/a.ts", edits: [{ oldText: "const a = 1;\n", newText: "const a = 2;\n" }] };
		const withDiff = renderTurnDelta(
			[
				calls(call("e", "edit", edits)),
				result("e", "edit", "Successfully replaced 1 block(s) in src/a.ts.", {
					details: { diff: "-1 const a = 1;\n+1 const a = 2;" },
				}),
			],
			"watchdog-finding",
		);
		expect(withDiff).toBe(
			"[Tool call] edit src/a.ts\n[Tool result]\nSuccessfully replaced 1 block(s) in src/a.ts.\n-1 const a = 1;\n+1 const a = 2;",
		);
		const failed = renderTurnDelta(
			[calls(call("e", "edit", edits)), result("e", "edit", "Could not find the exact text", { isError: true })],
			"watchdog-finding",
		);
		expect(failed).toContain("[Tool call] edit src/a.ts:\nreplace:\nconst a = 1;\n\nwith:\nconst a = 2;\n");
		expect(failed).not.toContain('"oldText"');
		// A file the input shows under "The change": the edit's diff is not repeated.
		const shown = renderTurnDelta(
			[calls(call("e", "edit", edits)), result("e", "edit", "Replaced.", { details: { diff: "+1 const a = 2;" } })],
			"watchdog-finding",
			{ shownFiles: new Set(["src/a.ts"]) },
		);
		expect(shown).not.toContain("+1 const a = 2;");
		expect(shown).toContain('(its diff is part of "The change", above)');
	});

	it("shows a write's content as text, or points to the change when the input shows the file", () => {
		const write = call("w", "write", { path: "./src/new.ts", content: "line one\nline two\n" });
		const entries = [calls(write), result("w", "write", "Successfully wrote 18 bytes")];
		expect(renderTurnDelta(entries, "watchdog-finding")).toContain(
			"[Tool call] write ./src/new.ts (2 line(s)):\nline one\nline two\n",
		);
		const pointed = renderTurnDelta(entries, "watchdog-finding", { shownFiles: new Set(["src/new.ts"]) });
		expect(pointed).toContain(
			'[Tool call] write ./src/new.ts (2 line(s); the file as it is now is under "The change")',
		);
		expect(pointed).not.toContain("line one");
		// The session's folder below the repository root, and an absolute path: placed in the repository.
		const nested = { shownFiles: new Set(["pkg/a/src/new.ts", "pkg/a/abs.ts"]), cwd: "/repo/pkg/a", root: "/repo" };
		expect(renderTurnDelta(entries, "watchdog-finding", nested)).not.toContain("line one");
		const absolute = call("v", "write", { path: "/repo/pkg/a/abs.ts", content: "abs line\n" });
		const abs = renderTurnDelta([calls(absolute), result("v", "write", "ok")], "watchdog-finding", nested);
		expect(abs).toContain('write /repo/pkg/a/abs.ts (1 line(s); the file as it is now is under "The change")');
	});
});

describe("head and tail", () => {
	it("keeps the start and the end of a long text within the limit, cutting at line ends", () => {
		const text = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n");
		const cut = headAndTail(text, 1000, 300);
		expect(cut.length).toBeLessThanOrEqual(1000);
		expect(cut.startsWith("line 0\nline 1\n")).toBe(true);
		expect(cut.endsWith("line 1999")).toBe(true);
		expect(cut).toMatch(/\n\[… [\d,]+ characters left out …\]\nline \d+\n/);
		expect(headAndTail("short", 100)).toBe("short");
		expect([thousands(7), thousands(1234), thousands(1234567)]).toEqual(["7", "1,234", "1,234,567"]);
	});
});
