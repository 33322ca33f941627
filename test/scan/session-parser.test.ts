// Reading a line's top-level type without parsing it, only when that is certain.
import { describe, expect, it } from "vitest";
import { peekField } from "../../src/scan/session-parser.ts";

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
