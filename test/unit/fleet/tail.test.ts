// What readTail takes from a session file's two ends: the id, folder and first prompt from the
// head, the latest model from the tail, and the last stretch's events (a stretch that ends on a
// tool call without its results).
import { lstatSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTail } from "../../../src/fleet/tail.ts";
import { tempDir } from "../../support/temp.ts";

const j = (o: object) => JSON.stringify(o);
const header = j({ type: "session", version: 3, id: "s-1", timestamp: "2026-12-01T10:00:00Z", cwd: "/w" });
const model = (id: string) => j({ type: "model_change", id: `m-${id}`, parentId: null, provider: "p", modelId: id });
const user = (text: string) =>
	j({ type: "message", id: "u", parentId: null, message: { role: "user", content: [{ type: "text", text }] } });
const said = (text: string) =>
	j({
		type: "message",
		id: "a",
		parentId: null,
		message: { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" },
	});
const calls = (id: string) =>
	j({
		type: "message",
		id: `a-${id}`,
		parentId: null,
		message: {
			role: "assistant",
			content: [{ type: "toolCall", id, name: "bash", arguments: { command: "npm test" } }],
			stopReason: "toolUse",
		},
	});
const result = (id: string, text: string) =>
	j({
		type: "message",
		id: `r-${id}`,
		parentId: null,
		message: {
			role: "toolResult",
			toolCallId: id,
			toolName: "bash",
			content: [{ type: "text", text }],
			isError: false,
		},
	});

function read(lines: string[]) {
	const root = tempDir("fleet-tail-");
	const path = join(root, "s.jsonl");
	writeFileSync(path, `${lines.join("\n")}\n`);
	const r = readTail(path, { root, listed: lstatSync(path) });
	if (!r.ok) throw new Error(r.reason);
	return r.read;
}

describe("readTail", () => {
	it("takes the latest model change, whether the head's or a later one", () => {
		expect(read([header, model("first"), user("Fix it"), said("Done.")]).model).toBe("p/first");
		const later = read([header, model("first"), user("Fix it"), said("Working."), model("second"), said("Done.")]);
		expect(later).toMatchObject({ id: "s-1", cwd: "/w", firstPrompt: "Fix it", model: "p/second", cut: false });
		// In a file read in part the change is found in the tail.
		const filler = Array.from({ length: 40 }, (_, i) => result(`f${i}`, "x".repeat(2000)));
		const cut = read([header, model("first"), user("Go"), ...filler, model("third"), user("Next"), said("Done.")]);
		expect(cut).toMatchObject({ id: "s-1", firstPrompt: "Go", model: "p/third", cut: true });
	});

	it("reads the last stretch, without the results when it ends on a tool call", () => {
		const done = read([header, user("Fix it"), calls("c1"), result("c1", "3 passed"), said("All tests pass.")]);
		expect(done.events.map((e) => e.type)).toEqual(["prompt", "call", "assistant"]);
		const mid = read([header, user("Fix it"), calls("c1"), result("c1", "ok"), calls("c2")]);
		expect(mid.events.map((e) => e.type)).toEqual(["prompt", "call", "call"]);
	});
});
