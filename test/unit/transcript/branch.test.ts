// One reader of Pi messages: a live session's branch gives the evidence checks the same events
// that `pi-watchdog scan` reads from the session file it was saved to, including the awkward
// parts (a call that never got a result, an id used twice, a result whose call is unknown).
import { describe, expect, it } from "vitest";
import { eventsFromBranch } from "../../../src/transcript/index.ts";
import { readAll, writeSessionFile } from "../../support/session-files.ts";

const message = (message: object) => ({
	type: "message",
	id: Math.random().toString(36).slice(2),
	parentId: null,
	timestamp: "2026-12-01T10:00:00.000Z",
	message,
});
const toolCall = (id: string, name: string, args: object) => ({ type: "toolCall", id, name, arguments: args });
const result = (toolCallId: string, toolName: string, text: string, isError = false) => ({
	role: "toolResult",
	toolCallId,
	toolName,
	content: [{ type: "text", text }],
	isError,
	timestamp: 1,
});

const ENTRIES = [
	message({ role: "user", content: "Fix the parser and run the tests", timestamp: 1 }),
	message({
		role: "assistant",
		content: [
			{ type: "text", text: "Reading it." },
			toolCall("c1", "read", { path: "src/parser.ts" }),
			toolCall("c2", "bash", { command: "npm test" }),
		],
		stopReason: "toolUse",
		timestamp: 1,
	}),
	// c2 is never answered (the run was cut off); the next turn's answer shows it never will be.
	message(result("c1", "read", "export function parse() {}")),
	message({
		role: "assistant",
		content: [toolCall("c1", "edit", { path: "src/parser.ts", oldText: "a", newText: "b" })],
		stopReason: "toolUse",
		timestamp: 1,
	}),
	message({ ...result("c1", "edit", "Edited src/parser.ts"), details: { diff: "-a\n+b" } }),
	message(result("ghost", "bash", "a result whose call nobody made")),
	message({
		role: "assistant",
		content: [
			{ type: "thinking", thinking: "hidden" },
			{ type: "text", text: "Done: tests pass." },
		],
		stopReason: "stop",
		timestamp: 1,
	}),
];

describe("a live branch and its session file", () => {
	it("read as the same events", async () => {
		const file = writeSessionFile("session.jsonl", [
			{ type: "session", version: 3, id: "s1", timestamp: "2026-12-01T10:00:00.000Z", cwd: "/tmp" },
			...ENTRIES,
		]);
		const { events: recorded } = await readAll(file);
		const live = eventsFromBranch(ENTRIES);
		expect(live).toEqual(recorded);
		// The unanswered `npm test` is there, with no result: the claim "tests pass" has nothing behind it.
		expect(live.filter((e) => e.type === "call").map((e) => e.type === "call" && [e.call.name, e.call.result])).toEqual(
			[
				["read", "export function parse() {}"],
				["bash", ""],
				["edit", "Edited src/parser.ts"],
			],
		);
	});
});
