// Reading a line's top-level type without parsing it, only when that is certain.
import { describe, expect, it } from "vitest";
import { newStats } from "../../../src/transcript/pairing.ts";
import { parseToolResultLine, peekField } from "../../../src/scan/session-parser.ts";

const TYPE = '"type":"';

describe("peekField", () => {
	it("reads a top-level field that comes before any nested value", () => {
		expect(peekField('{"type":"progress","data":{"type":"hook_progress"}}', TYPE)).toBe("progress");
		expect(peekField('{"parentUuid":null,"cwd":"/repo","type":"user","message":{}}', TYPE)).toBe("user");
		expect(peekField('{"version":1,"recordType":"tool_start","toolName":"read"}', '"recordType":"')).toBe("tool_start");
	});

	it("gives up when the first match could be nested, escaped or far away", () => {
		expect(peekField('{"message":{"type":"progress"},"type":"assistant"}', TYPE)).toBeUndefined();
		expect(peekField('{"content":[{"type":"text"}],"type":"user"}', TYPE)).toBeUndefined();
		expect(peekField('{"text":"say \\"type\\":\\"progress\\"","type":"user"}', TYPE)).toBe("user");
		expect(peekField(`{"pad":"${"x".repeat(3000)}","type":"progress"}`, TYPE)).toBeUndefined();
		expect(peekField('{"type":"a\\"b"}', TYPE)).toBeUndefined();
		expect(peekField('"type":"progress"', TYPE)).toBeUndefined();
		expect(peekField("{}", TYPE)).toBeUndefined();
	});
});

describe("parseToolResultLine", () => {
	const text = `${'output line with "quotes", a tab\t and é\n'.repeat(20)}end`;
	const isResult = (r: Record<string, unknown>) => (r.message as { role?: unknown } | undefined)?.role === "toolResult";
	const line = (top: string, truncation: string) =>
		JSON.stringify({
			recordType: "message",
			role: "toolResult",
			text: top,
			message: {
				role: "toolResult",
				toolCallId: "c1",
				content: [{ type: "text", text }],
				details: { truncation: { content: truncation, truncated: true } },
				isError: false,
			},
		});

	it("leaves out the top-level text and the truncation copy when they repeat the message's text", () => {
		const stats = newStats();
		const value = parseToolResultLine(line(text, text.slice(0, 500)), stats, true, isResult) as {
			text: string;
			message: { content: Array<{ text: string }>; details: { truncation: { content: string } } };
		};
		expect(value.text).toBe("");
		expect(value.message.details.truncation.content).toBe("");
		expect(value.message.content[0].text).toBe(text);
		expect(stats).toMatchObject({ lines: 1, malformed: 0 });
	});

	it("keeps a copy that differs, and counts a line malformed in a copy it could have left out", () => {
		const other = "something else entirely ".repeat(20);
		const kept = parseToolResultLine(line(other, other), newStats(), true, isResult) as {
			text: string;
			message: { details: { truncation: { content: string } } };
		};
		expect(kept.text).toBe(""); // well-formed, so still left out (the JSON check)
		expect(kept.message.details.truncation.content).toBe(other);
		const stats = newStats();
		const bad = line(text, text).replace('"truncation":{"content":"', '"truncation":{"content":"\\x');
		expect(parseToolResultLine(bad, stats, true, isResult)).toBeUndefined();
		expect(stats).toMatchObject({ lines: 1, malformed: 1 });
		// The copy cut just after a backslash: its closing quote is escaped, and the line is parsed in full.
		const raw = JSON.stringify(text).slice(1, -1);
		const cutAfterSlash = raw.slice(0, raw.indexOf("\\") + 1);
		const odd = line(text, "PLACEHOLDER").replace("PLACEHOLDER", cutAfterSlash);
		const s2 = newStats();
		const parsedOdd = parseToolResultLine(odd, s2, true, isResult);
		let full: unknown;
		try {
			full = JSON.parse(odd);
		} catch {
			full = undefined;
		}
		expect(parsedOdd).toEqual(full);
	});

	it("parses in full a line that is not a tool result after all", () => {
		const stats = newStats();
		const notResult = JSON.stringify({
			recordType: "message",
			role: "toolResult",
			text,
			message: { role: "assistant", content: [{ type: "text", text }] },
		});
		expect(parseToolResultLine(notResult, stats, true, isResult)).toEqual(JSON.parse(notResult));
		expect(stats).toMatchObject({ lines: 1, malformed: 0 });
	});
});
