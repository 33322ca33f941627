// The arbiter's answer handling, as a property: whatever the model sends back, only one
// well-formed `permission_decision` approve approves; everything else is a deny with a reason.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readDecision } from "../../../src/permissions/index.ts";

const toolCall = (name: unknown, args: unknown) => ({ type: "toolCall", id: "c1", name, arguments: args });
const reply = (content: unknown[], stopReason = "toolUse") => ({ role: "assistant", content, stopReason });

/** Is this exactly one well-formed approve? Written independently of readDecision, from the spec. */
function isWellFormedApprove(value: unknown): boolean {
	const r = value as { stopReason?: unknown; content?: unknown } | null;
	if (
		!r ||
		typeof r !== "object" ||
		r.stopReason === "error" ||
		r.stopReason === "aborted" ||
		!Array.isArray(r.content)
	)
		return false;
	const calls = r.content.filter((c) => c && typeof c === "object" && (c as { type?: unknown }).type === "toolCall");
	if (calls.length !== 1) return false;
	const call = calls[0] as { name?: unknown; arguments?: unknown };
	const args = call.arguments as Record<string, unknown> | null;
	if (call.name !== "permission_decision" || !args || typeof args !== "object" || Array.isArray(args)) return false;
	// A key whose value is undefined is absent: JSON, the only way a model's arguments arrive, cannot carry it.
	const present = Object.keys(args).filter((k) => args[k] !== undefined);
	if (present.some((k) => k !== "decision" && k !== "reason")) return false;
	return (
		args.decision === "approve" &&
		typeof args.reason === "string" &&
		args.reason.trim().length > 0 &&
		args.reason.length <= 500
	);
}

const anyArgs = fc.oneof(
	fc.record({
		decision: fc.constantFrom("approve", "deny", "Approve", "yes", "", "approve "),
		reason: fc.oneof(fc.string(), fc.constant(""), fc.constant("  "), fc.string({ minLength: 490, maxLength: 520 })),
	}),
	fc.record({
		decision: fc.constantFrom("approve", "deny"),
		reason: fc.string({ minLength: 1 }),
		extra: fc.anything(),
	}),
	fc.record({ decision: fc.constantFrom("approve"), reason: fc.anything() }),
	fc.record({ decision: fc.anything(), reason: fc.string() }),
	fc.anything(),
);
const anyCall = fc.oneof(
	fc.record({
		type: fc.constant("toolCall"),
		id: fc.string(),
		name: fc.constantFrom("permission_decision", "permission_decisions", "watchdog_warn", "approve"),
		arguments: anyArgs,
	}),
	fc.record({ type: fc.constant("text"), text: fc.string() }),
	fc.record({ type: fc.constant("thinking"), thinking: fc.string() }),
	fc.anything(),
);
const anyReply = fc.oneof(
	fc.record({
		role: fc.constant("assistant"),
		content: fc.array(anyCall, { maxLength: 4 }),
		stopReason: fc.constantFrom("toolUse", "stop", "length", "error", "aborted"),
		errorMessage: fc.option(fc.string()),
	}),
	fc.anything(),
);

describe("readDecision", () => {
	it("approves exactly the well-formed approves, and gives every deny a reason", () => {
		fc.assert(
			fc.property(anyReply, (r) => {
				const outcome = readDecision(r, "m/x");
				const approved = outcome.kind === "decision" && outcome.decision === "approve";
				expect(approved).toBe(isWellFormedApprove(r));
				expect(outcome.reason.trim().length).toBeGreaterThan(0);
			}),
			{ numRuns: 3000 },
		);
	});

	it("reads the plain cases", () => {
		expect(
			readDecision(reply([toolCall("permission_decision", { decision: "approve", reason: "fits" })])),
		).toMatchObject({ kind: "decision", decision: "approve", reason: "fits" });
		expect(readDecision(reply([toolCall("permission_decision", { decision: "deny", reason: "no" })]))).toMatchObject({
			kind: "decision",
			decision: "deny",
		});
		expect(readDecision(reply([{ type: "text", text: "approve" }], "stop"))).toMatchObject({
			kind: "failure",
			failure: "no-tool-call",
		});
		expect(
			readDecision(
				reply([
					toolCall("permission_decision", { decision: "approve", reason: "a" }),
					toolCall("permission_decision", { decision: "approve", reason: "b" }),
				]),
			),
		).toMatchObject({ kind: "failure", failure: "malformed" });
		expect(
			readDecision(reply([toolCall("permission_decision", { decision: "approve", reason: "ok" })], "error")),
		).toMatchObject({ kind: "failure", failure: "error" });
		expect(readDecision(undefined)).toMatchObject({ kind: "failure", failure: "error" });
	});
});
