// The waits a live entry reports: the wait that began them and since when, the same object
// while any wait lasts (so the entry is written once per change), nothing once all have ended.
import { expect, it } from "vitest";
import { LiveWaits } from "../../../src/session/live-step.ts";

it("names the first open wait until every wait has ended", async () => {
	const waits = new LiveWaits();
	expect(waits.current()).toBeUndefined();
	waits.report("worker: waiting on the permission arbiter for write");
	const first = waits.current();
	expect(first?.what).toBe("worker: waiting on the permission arbiter for write");
	expect(Number.isNaN(Date.parse(first?.since ?? ""))).toBe(false);
	waits.report("tester: waiting on the permission arbiter for bash");
	waits.report(undefined);
	expect(waits.current()).toBe(first);
	waits.report(undefined);
	expect(waits.current()).toBeUndefined();
	// an end with nothing open does not leave a debt that hides the next wait
	waits.report(undefined);
	waits.report("again");
	expect(waits.current()?.what).toBe("again");
	waits.report(undefined);
	// a dialog that fails still ends its wait
	await expect(
		waits.on("waiting on you: Let the worker lower oversight?", async () => {
			expect(waits.current()?.what).toBe("waiting on you: Let the worker lower oversight?");
			throw new Error("closed");
		}),
	).rejects.toThrow("closed");
	expect(waits.current()).toBeUndefined();
});
