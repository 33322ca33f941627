// Opening session files: format detection, clear errors, malformed lines, long lines and results.
import { describe, expect, it } from "vitest";
import { detectFormat, openSession, RESULT_CHARS, readSessionEvents } from "../../../src/scan/read-session.ts";
import { tempDir } from "../../support/temp.ts";
import { call, prompt, readAll, writeSessionFile, writeText } from "../../support/session-files.ts";

const PI_HEADER = { type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/repo" };
const piUser = (text: string) => ({
	type: "message",
	id: "u",
	parentId: null,
	timestamp: "t",
	message: { role: "user", content: text },
});
const piCall = (id: string, name: string, args: Record<string, unknown>) => ({
	type: "message",
	id: `a-${id}`,
	parentId: null,
	timestamp: "t",
	message: { role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }] },
});
const piResult = (id: string, text: string) => ({
	type: "message",
	id: `r-${id}`,
	parentId: null,
	timestamp: "t",
	message: { role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: false },
});

describe("detectFormat", () => {
	const j = (o: object) => JSON.stringify(o);
	it("tells the four formats apart from their first lines", () => {
		expect(detectFormat([j(PI_HEADER), j(piUser("hi"))])).toBe("pi");
		expect(
			detectFormat([
				j({
					version: 1,
					recordType: "message",
					runId: "ab",
					sourceEventType: "initial_prompt",
					role: "user",
					text: "go",
				}),
			]),
		).toBe("pi-subagents");
		expect(
			detectFormat([
				j({ type: "file-history-snapshot", messageId: "m", snapshot: {} }),
				j({ type: "user", uuid: "u", sessionId: "s", message: {} }),
			]),
		).toBe("claude-code");
		expect(
			detectFormat([
				j({ parentUuid: null, type: "user", sessionId: "s", uuid: "u", message: { role: "user", content: "hi" } }),
			]),
		).toBe("claude-code");
		expect(detectFormat(["# Claude Session Export", "", "## Session Information"])).toBe("claude-export");
	});

	it("looks past blank and malformed first lines, and says undefined for anything else", () => {
		expect(detectFormat(["", "{not json", j(PI_HEADER)])).toBe("pi");
		expect(detectFormat([j({ hello: "world" }), "plain text", "[1,2,3]"])).toBeUndefined();
		expect(detectFormat(["# My notes", "", "Some text"])).toBeUndefined();
		expect(detectFormat([])).toBeUndefined();
	});

	it("takes a file that opens with a whole record for that format, even if it holds a Gemini document's keys", () => {
		// A tool call whose arguments hold the key Gemini CLI's documents are known by.
		const claude = j({
			type: "assistant",
			uuid: "u",
			sessionId: "s",
			message: {
				role: "assistant",
				content: [{ type: "tool_use", id: "t", name: "Cache", input: { projectHash: "ab" } }],
			},
		});
		expect(detectFormat([claude])).toBe("claude-code");
		// The same words in a document that does not open with a record still make it Gemini's.
		expect(detectFormat(["{", '  "sessionId": "g",', '  "projectHash": "ab",', '  "messages": []', "}"])).toBe(
			"gemini",
		);
	});
});

describe("openSession", () => {
	it("names the file and the reason when it cannot be read", async () => {
		const missing = `${tempDir()}/nope.jsonl`;
		await expect(openSession(missing)).rejects.toThrow(`${missing}: cannot read the file (no such file)`);
		const dir = tempDir();
		await expect(openSession(dir)).rejects.toThrow(`${dir}: cannot read the file (it is a directory)`);
		const events = readSessionEvents(missing);
		await expect(events.next()).rejects.toThrow(/nope\.jsonl: cannot read the file/);
	});

	it("refuses a file in no known format, and an empty one", async () => {
		const expected =
			"not a recognised session format (expected a Pi session file, a pi-subagents transcript, Claude Code JSONL or a Claude Code Markdown export)";
		const notes = writeText("notes.md", "# Notes\n\nNothing to see.\n");
		await expect(openSession(notes)).rejects.toThrow(`${notes}: ${expected}`);
		const empty = writeText("empty.jsonl", "");
		await expect(openSession(empty)).rejects.toThrow(`${empty}: ${expected}`);
	});

	it("skips and counts malformed lines inside a recognised file", async () => {
		const path = writeSessionFile("s.jsonl", [
			PI_HEADER,
			piUser("one"),
			'{"type":"message",',
			"",
			"[1]",
			piUser("two"),
		]);
		const { session, events } = await readAll(path);
		expect(events).toStrictEqual([prompt("one"), prompt("two")]);
		expect(session.stats).toMatchObject({ lines: 5, malformed: 2 });
	});

	it("emits a call that never got a result at the end, with an empty result", async () => {
		const path = writeSessionFile("s.jsonl", [PI_HEADER, piUser("go"), piCall("c1", "bash", { command: "sleep 999" })]);
		const { session, events } = await readAll(path);
		expect(events).toStrictEqual([
			prompt("go"),
			call({ index: 0, name: "bash", kind: "bash", args: { command: "sleep 999" }, command: "sleep 999", result: "" }),
		]);
		expect(session.stats.unanswered).toBe(1);
	});

	it("bounds a huge result to RESULT_CHARS, and reads lines longer than a read chunk", async () => {
		const huge = `HEAD${"x".repeat(3 * 1024 * 1024)}TAIL`;
		const path = writeSessionFile("s.jsonl", [
			PI_HEADER,
			piCall("c1", "bash", { command: "cat big.log" }),
			piResult("c1", huge),
			piUser("thanks"),
		]);
		const { events } = await readAll(path);
		expect(events).toHaveLength(2);
		const first = events[0];
		const half = RESULT_CHARS / 2;
		expect(first.type === "call" && first.call.result).toBe(
			`HEAD${"x".repeat(half - 4)}\n[…]\n${"x".repeat(half - 4)}TAIL`,
		);
		expect(events[1]).toStrictEqual(prompt("thanks"));
	});

	it("reads CRLF line endings and multi-byte characters split across reads", async () => {
		// Pad so that a multi-byte character straddles the 1 MiB read boundary.
		const pad = `a${"é".repeat(600_000)}`;
		const lines = [JSON.stringify(PI_HEADER), JSON.stringify(piUser(pad)), JSON.stringify(piUser("naïve — ✓"))];
		const path = writeText("crlf.jsonl", `${lines.join("\r\n")}\r\n`);
		const { events, session } = await readAll(path);
		expect(events).toStrictEqual([prompt(pad), prompt("naïve — ✓")]);
		expect(session.stats.malformed).toBe(0);
	});

	it("can be stopped early", async () => {
		const path = writeSessionFile("s.jsonl", [PI_HEADER, piUser("one"), piUser("two")]);
		const seen: string[] = [];
		for await (const event of readSessionEvents(path)) {
			if (event.type === "prompt") seen.push(event.text);
			break;
		}
		expect(seen).toStrictEqual(["one"]);
	});

	it("gives the same events in batches, one batch per chunk of lines read", async () => {
		// Three 1 MiB chunks' worth of calls, so there are several batches.
		const lines: object[] = [PI_HEADER, piUser("go")];
		for (let i = 0; i < 300; i++)
			lines.push(piCall(`c${i}`, "bash", { command: `echo ${i}` }), piResult(`c${i}`, `${i} ${"y".repeat(10_000)}`));
		const path = writeSessionFile("s.jsonl", lines);
		const { events } = await readAll(path);
		const batches: number[] = [];
		const flat = [];
		for await (const batch of (await openSession(path)).batches) {
			batches.push(batch.length);
			flat.push(...batch);
		}
		expect(batches.length).toBeGreaterThan(2);
		expect(batches.every((n) => n > 0)).toBe(true);
		expect(flat).toStrictEqual(events);
	});
});
