// Which blockers a headless run ends with: the ledger's judgement over settles and records.
import { describe, expect, it } from "vitest";
import { makeFinding } from "../../../src/findings/index.ts";
import { HeadlessLedger } from "../../../src/headless/index.ts";

const finding = (
	source: string,
	importance: "low" | "medium" | "high",
	severity: "concern" | "blocker",
	summary = "s",
) => makeFinding({ summary, evidence: "e", recommendedAction: "a", importance, severity }, source);
const END = { reviews: [], verifications: [], stalemate: false };

describe("HeadlessLedger.blockers", () => {
	it("keeps a review's high findings until a later review gives a verdict without them", () => {
		const ledger = new HeadlessLedger();
		ledger.settled({
			findings: [finding("main", "high", "concern", "open"), finding("main", "low", "concern")],
			verdict: true,
		});
		ledger.settled({ findings: [], verdict: false }); // a continuation that changed nothing: no review
		expect(ledger.blockers(END).map((b) => `${b.kind}:${b.summary}`)).toEqual(["finding:open"]);
		ledger.settled({ findings: [], verdict: true });
		expect(ledger.blockers(END)).toEqual([]);
	});

	it("judges claims and unfinished stops by the last settle only, and a sign-off is not unfinished", () => {
		const ledger = new HeadlessLedger();
		ledger.settled({ findings: [finding("claims", "high", "blocker", "contradicted")], verdict: false });
		expect(ledger.blockers(END).map((b) => b.kind)).toEqual(["claim"]);
		ledger.settled({ findings: [finding("idle", "medium", "concern", "Stopped for your decision")], verdict: false });
		expect(ledger.blockers(END)).toEqual([]);
		ledger.settled({
			findings: [finding("idle", "medium", "concern", "Stopped with an empty final message")],
			verdict: false,
		});
		expect(ledger.blockers(END).map((b) => b.kind)).toEqual(["unfinished"]);
		ledger.settled({ findings: [finding("claims", "medium", "concern", "not backed")], verdict: false });
		expect(ledger.blockers(END)).toEqual([]);
	});

	it("adds a stalemate, unproven children of the last verification, runs never seen to end, a failed last review and what is pending", () => {
		const ledger = new HeadlessLedger();
		const blockers = ledger.blockers({
			stalemate: true,
			openRuns: ["20261202-070633-e17a4e"],
			verifications: [
				{ outcome: "problems", children: [{ id: "r1/w", label: "w", verdict: "contradicted" }] },
				{
					outcome: "problems",
					children: [
						{ id: "r2/a", label: "a", verdict: "genuine" },
						{ id: "r2/b", label: "b", verdict: "unproven" },
						{ id: "r2/c", label: "c", verdict: "stopped" },
					],
				},
			],
			reviews: [
				{ status: "failed", failure: { kind: "timeout", message: "60 s" }, pending: { "a.ts": "review timed out" } },
				{ status: "cancelled", pending: { "a.ts": "review timed out", "b.ts": "cancelled by new input" } },
			],
		});
		expect(blockers.map((b) => `${b.kind}:${b.summary}`)).toEqual([
			"stalemate:a finding stalemated: the agent kept not fixing it",
			"child:child b (r2/b): unproven",
			"child:background run 20261202-070633-e17a4e had not ended when the session did: its children were never verified",
			"review:the last review failed (timeout: 60 s)",
			"pending:2 changed path(s) never reviewed: review timed out; cancelled by new input",
		]);
	});
});
