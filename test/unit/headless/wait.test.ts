// Print mode's end: work still in flight (a stopped subtree's verification) is awaited up to
// its deadline and named on stderr; RPC mode does not wait; nothing new may start meanwhile.
import { describe, expect, it } from "vitest";
import { Headless } from "../../../src/headless/index.ts";

function headless(said: string[]) {
	return new Headless({
		flag: () => undefined,
		settings: () => ({ enabled: true, strict: false }),
		stalemated: () => false,
		stderr: (text) => said.push(text),
	});
}
const ctx = (mode: string) =>
	({
		mode,
		cwd: "/",
		sessionManager: { getBranch: () => [], getSessionId: () => "s", getSessionFile: () => undefined },
	}) as never;

describe("print mode's wait at the end", () => {
	it("waits for tracked work, says what it waited for, and holds back new runs meanwhile", async () => {
		const said: string[] = [];
		const h = headless(said);
		let finished = false;
		let closingMeanwhile: boolean | undefined;
		h.track(
			new Promise<void>((r) =>
				setTimeout(() => {
					closingMeanwhile = h.closing();
					finished = true;
					r();
				}, 30),
			),
			"the verification of stopped children",
			60_000,
		);
		await h.end(ctx("print"), "quit");
		expect(finished).toBe(true);
		expect(closingMeanwhile).toBe(true);
		expect(h.closing()).toBe(false);
		expect(said).toEqual([
			expect.stringMatching(/^watchdog: waited for the verification of stopped children \(\d+\.\d s\) before exiting$/),
		]);
	});

	it("gives up at the deadline and says so", async () => {
		const said: string[] = [];
		const h = headless(said);
		h.track(new Promise(() => {}), "the verification of stopped children", -4_990);
		await h.end(ctx("json"), "quit");
		expect(said[0]).toMatch(/\(\d+\.\d s, gave up at its deadline\) before exiting$/);
	});

	it("does not wait in RPC mode, nor when nothing is in flight", async () => {
		const said: string[] = [];
		const h = headless(said);
		let finished = false;
		h.track(new Promise<void>((r) => setTimeout(() => ((finished = true), r()), 30)), "x", 60_000);
		await h.end(ctx("rpc"), "quit");
		expect(finished).toBe(false);
		await headless(said).end(ctx("print"), "quit");
		expect(said).toEqual([]);
	});
});
