// `watchdog_ask`'s arguments: one schema, checked here; over-long texts are cut, not refused.
import { describe, expect, it } from "vitest";
import { ASK_LIMITS, ASK_PARAMS, ASK_TOOL, parseAskArgs } from "../../../src/review/ask-args.ts";

describe("watchdog_ask arguments", () => {
	it("shows the model its limits and takes a question with its evidence", () => {
		expect(ASK_TOOL.parameters).toBe(ASK_PARAMS);
		expect((ASK_PARAMS.properties.question as { maxLength?: number }).maxLength).toBe(1000);
		expect((ASK_PARAMS.properties.evidence as { maxLength?: number }).maxLength).toBe(2000);
		expect(parseAskArgs({ question: " Is B on hold? ", evidence: "B idle" })).toEqual({
			ok: true,
			value: { question: "Is B on hold?", evidence: "B idle" },
		});
	});

	it("cuts over-long texts to 1,000 and 2,000 characters", () => {
		const parsed = parseAskArgs({ question: "q".repeat(5000), evidence: "e".repeat(5000) });
		expect(parsed.ok && parsed.value.question.length).toBe(ASK_LIMITS.question);
		expect(parsed.ok && parsed.value.evidence.length).toBe(ASK_LIMITS.evidence);
	});

	it("refuses what is not a question with evidence", () => {
		expect(parseAskArgs(null)).toEqual({ ok: false, error: '"question" is required; "evidence" is required' });
		expect(parseAskArgs([])).toEqual({ ok: false, error: "the arguments must be a JSON object, got an array" });
		expect(parseAskArgs({ question: "  ", evidence: 3 })).toEqual({
			ok: false,
			error: '"question" must not be empty; "evidence" must be a string, got number 3',
		});
	});
});
