import { expect, it } from "vitest";
import { type Finding, makeFinding } from "../../../src/findings/index.ts";
import { outcomeLabel } from "../../../src/session/outcome-label.ts";

const f = (severity: "concern" | "blocker"): Finding =>
	makeFinding({ summary: "s", evidence: "e", recommendedAction: "a", importance: "high", severity }, "main");

it("says briefly what the last review came to", () => {
	expect(outcomeLabel({ status: "clean", sent: [], shown: [] })).toBe("watchdog: clean");
	expect(outcomeLabel({ status: "findings", sent: [f("blocker")], shown: [] })).toBe("watchdog: 1 blocker sent");
	expect(outcomeLabel({ status: "findings", sent: [f("blocker"), f("concern")], shown: [f("concern")] })).toBe(
		"watchdog: 2 findings sent, 1 concern for you",
	);
	expect(outcomeLabel({ status: "failed", failureKind: "rate-limit", sent: [f("blocker")], shown: [] })).toBe(
		"watchdog: 1 blocker sent, review failed (rate-limit)",
	);
	expect(outcomeLabel({ status: "cancelled", sent: [], shown: [] })).toBe(
		"watchdog: review cancelled (changes pending)",
	);
});

it("never says clean when the type check did not run", () => {
	const skipped = "no answer to workspace/executeCommand within 9397 ms";
	expect(outcomeLabel({ status: "clean", sent: [], shown: [f("concern")], lspSkipped: skipped })).toBe(
		`watchdog: 1 concern for you, type check skipped: ${skipped}`,
	);
});
