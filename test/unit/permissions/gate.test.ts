// The gate alone, with the arbiter as a plain function: allowed calls answer synchronously,
// the reasons name the rule, and a fault anywhere in the gate blocks the call.
import { describe, expect, it } from "vitest";
import {
	type ArbiterOutcome,
	type DeniedAsk,
	type GateDeps,
	layerPolicy,
	PermissionGate,
	UserAllowances,
} from "../../../src/permissions/index.ts";

const policy = layerPolicy({ rules: { edit: "ask", write: "deny" }, file: "/g/config.json" }, undefined);
const ctx = { modelRegistry: {} as never, sessionManager: { getBranch: () => [] } };
const on = {
	enabled: true,
	choice: { kind: "configured" as const, provider: "p", id: "m", thinking: "off" as const },
	timeoutMs: 1000,
};

function gate(
	over: Partial<GateDeps> = {},
	answer: ArbiterOutcome = { kind: "decision", decision: "approve", reason: "ok", model: "p/m" },
) {
	const lines: unknown[] = [];
	const g = new PermissionGate(policy, {
		role: "worker",
		task: "t",
		settings: () => on,
		record: (_c, l) => void lines.push(l),
		arbiter: async () => answer,
		...over,
	});
	return { g, lines };
}

describe("PermissionGate", () => {
	it("answers an allowed call synchronously with nothing recorded", () => {
		const { g, lines } = gate();
		expect(g.check(ctx, { toolName: "read", input: { path: "a" } })).toBeUndefined();
		expect(lines).toEqual([]);
	});

	it("blocks a fault closed: a throwing audit, settings or arbiter never lets the call through", async () => {
		const throwing = gate({
			record: () => {
				throw new Error("disk full");
			},
		});
		expect(await throwing.g.check(ctx, { toolName: "edit", input: {} })).toMatchObject({
			block: true,
			reason: expect.stringContaining("permission gate failed (disk full)"),
		});
		expect(throwing.g.check(ctx, { toolName: "write", input: {} })).toMatchObject({ block: true });
		const badSettings = gate({
			settings: () => {
				throw new Error("no settings");
			},
		});
		expect(await badSettings.g.check(ctx, { toolName: "edit", input: {} })).toMatchObject({
			block: true,
			reason: expect.stringContaining("no settings"),
		});
		const badArbiter = gate({
			arbiter: async () => {
				throw new Error("boom");
			},
		});
		expect(await badArbiter.g.check(ctx, { toolName: "edit", input: {} })).toMatchObject({
			block: true,
			reason: expect.stringContaining("boom"),
		});
	});

	it("reuses a decision only for the same tool and arguments, whatever their key order", async () => {
		let asked = 0;
		const { g, lines } = gate({
			arbiter: async () => (asked++, { kind: "decision", decision: "approve", reason: "ok", model: "p/m" }),
		});
		expect(await g.check(ctx, { toolName: "edit", input: { path: "a", edits: [1] } })).toBeUndefined();
		expect(await g.check(ctx, { toolName: "edit", input: { edits: [1], path: "a" } })).toBeUndefined();
		expect(await g.check(ctx, { toolName: "edit", input: { path: "b", edits: [1] } })).toBeUndefined();
		expect(asked).toBe(2);
		expect(lines.map((l: any) => l.how)).toEqual(["arbiter", "reused", "arbiter"]);
	});

	it("does not reuse a failure", async () => {
		let asked = 0;
		const { g } = gate({ arbiter: async () => (asked++, { kind: "failure", failure: "timeout", reason: "late" }) });
		await g.check(ctx, { toolName: "edit", input: { path: "a" } });
		await g.check(ctx, { toolName: "edit", input: { path: "a" } });
		expect(asked).toBe(2);
	});
});

describe("the user's word over the arbiter", () => {
	const denied: ArbiterOutcome = { kind: "decision", decision: "deny", reason: "not needed", model: "p/m" };
	const timedOut: ArbiterOutcome = {
		kind: "failure",
		failure: "timeout",
		reason: "the arbiter did not answer in time",
	};
	const withUser = (book: UserAllowances, told: DeniedAsk[], answer: ArbiterOutcome = denied, child = "r1/worker") =>
		gate({ user: { book, child, who: "worker", tell: (d) => void told.push(d) } }, answer);

	it("a denied ask (by the arbiter or a fail-safe) can be allowed once; the identical call then runs once", async () => {
		for (const answer of [denied, timedOut]) {
			const book = new UserAllowances();
			const told: DeniedAsk[] = [];
			const { g, lines } = withUser(book, told, answer);
			const call = { toolName: "edit", input: { path: "a", text: "x" } };
			const first = await g.check(ctx, call);
			expect(first).toMatchObject({ block: true, reason: expect.stringContaining("may allow this exact call once") });
			expect(told).toHaveLength(1);
			expect(book.allow(told[0].id)).toMatchObject({ who: "worker", tool: "edit" });
			// another call is not the one allowed
			expect(await g.check(ctx, { toolName: "edit", input: { path: "b" } })).toMatchObject({ block: true });
			expect(await g.check(ctx, call)).toBeUndefined();
			expect(await g.check(ctx, call)).toMatchObject({ block: true });
			expect(lines.filter((l) => (l as { how: string }).how === "user")).toHaveLength(1);
		}
	});

	it("a rule's deny is never offered, another child's allowance is not this one's, and without a user nothing is", async () => {
		const book = new UserAllowances();
		const told: DeniedAsk[] = [];
		const { g } = withUser(book, told);
		expect(g.check(ctx, { toolName: "write", input: {} })).toMatchObject({ block: true });
		expect(told).toEqual([]);
		await g.check(ctx, { toolName: "edit", input: {} });
		book.allow(told[0].id);
		const other = withUser(book, [], denied, "r1/scout");
		expect(await other.g.check(ctx, { toolName: "edit", input: {} })).toMatchObject({ block: true });
		const silent = gate({ user: { book, child: "r2/worker", who: "worker" } }, denied);
		const verdict = await silent.g.check(ctx, { toolName: "edit", input: {} });
		expect(verdict).toMatchObject({ block: true });
		expect(verdict?.reason).not.toContain("may allow");
		expect(book.allow("nope")).toBeUndefined();
		// what waits for the user, by child: the other child's denial, not the allowed one
		expect(book.pendingFor("r1/worker")).toEqual([]);
		expect(book.pendingFor("r1/scout")).toEqual([`${book.pending()[0]?.id} edit`]);
	});
});
