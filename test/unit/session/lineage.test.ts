// A session's place in a tree of children: the depth check, what a child inherits (an agent
// file's maxDepth only lowers the limit, the tree's deadline bounds every child below it), a
// lineage read from untrusted JSON, and the tree's shared concurrency budget.
import { describe, expect, it } from "vitest";
import { boundedTimeout, childLineage, readLineage, TOP, tooDeep, TreeSlots } from "../../../src/session/lineage.ts";

describe("depth", () => {
	it("at the default 2 the main session's children may launch, theirs may not", () => {
		const child = childLineage(TOP, "worker", undefined, 60_000, 0);
		const grandchild = childLineage(child, "tester", undefined, 60_000, 0);
		expect(tooDeep(TOP, 2)).toBeUndefined();
		expect(tooDeep(child, 2)).toBeUndefined();
		expect(tooDeep(grandchild, 2)).toMatch(
			/^not launched: this agent \(worker > tester\) is at depth 2, so its children would be at depth 3, and children.maxDepth is 2/,
		);
		expect(tooDeep(child, 1)).toMatch(/children.maxDepth is 1/);
	});

	it("an agent file's maxDepth lowers the limit for everything below it and never raises it", () => {
		const shallow = childLineage(TOP, "lead", 1, 60_000, 0);
		expect(tooDeep(shallow, 2)).toMatch(/an agent file above it sets maxDepth 1/);
		const deepAsked = childLineage(TOP, "lead", 5, 60_000, 0);
		expect(tooDeep(childLineage(deepAsked, "tester", undefined, 1, 0), 2)).toMatch(/children.maxDepth is 2/);
		// a lower limit higher up stays in force below an agent that asks for more
		const below = childLineage(shallow, "x", 4, 60_000, 0);
		expect(below.maxDepth).toBe(1);
	});
});

describe("the tree's deadline", () => {
	it("is set by the main session's launch and bounds every child below it", () => {
		const child = childLineage(TOP, "worker", undefined, 10_000, 1_000);
		expect(child.deadline).toBe(11_000);
		expect(boundedTimeout(child, 60_000, 5_000)).toBe(6_000);
		expect(boundedTimeout(child, 2_000, 5_000)).toBe(2_000);
		expect(boundedTimeout(child, 60_000, 20_000)).toBe(1); // passed: the child stops at once
		expect(childLineage(child, "tester", undefined, 60_000, 5_000).deadline).toBe(11_000);
		expect(boundedTimeout(TOP, 60_000, 0)).toBe(60_000);
	});
});

describe("a lineage from untrusted JSON", () => {
	it("keeps what is well formed and falls back to the top for the rest", () => {
		expect(readLineage({ depth: 1, path: ["worker", 3], maxDepth: 1, deadline: 5 })).toEqual({
			depth: 1,
			path: ["worker"],
			maxDepth: 1,
			deadline: 5,
		});
		for (const bad of [null, "x", { depth: -1 }, { depth: 1.5 }, { depth: 1000 }, {}])
			expect(readLineage(bad)).toBe(TOP);
		expect(readLineage({ depth: 2, maxDepth: "9" })).toEqual({ depth: 2, path: [] });
	});
});

describe("the tree's concurrency", () => {
	it("counts every holder and lets a waiting parent lend its slot to its children", async () => {
		const slots = new TreeSlots(() => 1);
		const parent = await slots.acquire();
		expect(slots.inUse).toBe(1);
		let childStarted = false;
		const child = slots.acquire().then((release) => {
			childStarted = true;
			return release;
		});
		await new Promise((r) => setTimeout(r, 10));
		expect(childStarted).toBe(false); // the tree is full
		const loan = slots.lend(); // the parent waits on its launch
		const release = await child;
		expect(childStarted).toBe(true);
		expect(slots.inUse).toBe(1);
		let back = false;
		const taking = loan.take().then(() => {
			back = true;
		});
		await new Promise((r) => setTimeout(r, 10));
		expect(back).toBe(false); // the child still runs
		release?.();
		await taking;
		expect(slots.inUse).toBe(1);
		parent?.();
		expect(slots.inUse).toBe(0);
	});

	it("a wait ends undefined when its launch is stopped, and a release counts once", async () => {
		const slots = new TreeSlots(() => 1);
		const held = await slots.acquire();
		const stop = new AbortController();
		const waiting = slots.acquire(stop.signal);
		stop.abort();
		expect(await waiting).toBeUndefined();
		held?.();
		held?.();
		expect(slots.inUse).toBe(0);
	});
});
