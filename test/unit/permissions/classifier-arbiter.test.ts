// Reading a classifier's answer as the arbiter's decision: only a well-formed approve at or
// above the threshold approves; everything else denies, and a result that is not an answer fails.
import { describe, expect, it } from "vitest";
import { readClassification } from "../../../src/permissions/classifier-arbiter.ts";

const answer = (choice: unknown, approve: unknown) => ({
	stopReason: "stop",
	answers: { decision: { type: "choice", choice, probabilities: { approve }, confidence: 0.9 } },
});
const read = (result: unknown) => readClassification(result, "p/judge", 0.8);

describe("readClassification", () => {
	it("approves a choice of approve at or above the threshold", () => {
		expect(read(answer("approve", 0.8))).toMatchObject({ kind: "decision", decision: "approve", model: "p/judge" });
		expect(read(answer("approve", 0.79))).toMatchObject({ kind: "decision", decision: "deny" });
		expect(read(answer("deny", 0.95))).toMatchObject({ kind: "decision", decision: "deny" });
	});

	it("fails (denies) on anything that is not a well-formed answer", () => {
		const failures = [
			undefined,
			"approve",
			{ stopReason: "error", errorMessage: "boom" },
			{ stopReason: "aborted" },
			{ stopReason: "stop", answers: {} },
			{ stopReason: "stop", answers: { decision: { type: "bool", probability: 1 } } },
			answer("approve", Number.NaN),
			answer("approve", 1.5),
			answer("approve", "0.9"),
			answer("maybe", 0.99),
		].map((r) => read(r));
		for (const f of failures) expect(f.kind).toBe("failure");
		expect(failures.map((f) => (f.kind === "failure" ? f.failure : ""))).toEqual([
			"error",
			"error",
			"error",
			"error",
			"malformed",
			"malformed",
			"malformed",
			"malformed",
			"malformed",
			"malformed",
		]);
	});
});
