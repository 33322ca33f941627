// The holder that loads a session's watchdog when first needed: at once for a session that does not start
// dormant; for a dormant one after LOAD_AFTER_MS or at the first need, once, with the prompts it met handed over.
import { describe, expect, it } from "vitest";
import { DeferredWatchdog, type EarlyInput, LOAD_AFTER_MS } from "../../../src/startup/deferred.ts";

type Fake = { id: number; started: string[]; inputs: EarlyInput[] };

function holder(options: { fail?: number } = {}) {
	let made = 0;
	let failures = options.fail ?? 0;
	const errors: unknown[] = [];
	const deferred = new DeferredWatchdog<Fake>({
		make: async () => {
			if (failures-- > 0) throw new Error("no code");
			return { id: ++made, started: [], inputs: [] };
		},
		start: (w, ctx) => w.started.push(String((ctx as unknown as { name: string }).name)),
		replay: (w, inputs) => w.inputs.push(...inputs),
		failed: (error) => errors.push(error),
	});
	return { deferred, made: () => made, errors };
}
const ctx = (name: string) => ({ name }) as never;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("DeferredWatchdog", () => {
	it("loads and starts at once for a session that is not dormant", async () => {
		const { deferred, made } = holder();
		await deferred.sessionStart(ctx("s1"), false);
		expect(made()).toBe(1);
		expect(deferred.current?.started).toEqual(["s1"]);
		await deferred.sessionStart(ctx("s2"), true); // a later session start reuses it, dormant or not
		expect(made()).toBe(1);
		expect(deferred.current?.started).toEqual(["s1", "s2"]);
	});

	it("loads a dormant session's watchdog after LOAD_AFTER_MS, handing over the prompts it met in order", async () => {
		const { deferred, made } = holder();
		await deferred.sessionStart(ctx("s"), true);
		expect(made()).toBe(0);
		expect(deferred.ready()).toBeUndefined();
		deferred.remember({ text: "first", user: true });
		deferred.remember({ text: "from another extension", user: false });
		await sleep(LOAD_AFTER_MS + 100);
		expect(made()).toBe(1);
		expect(deferred.current?.started).toEqual(["s"]);
		expect(deferred.current?.inputs).toEqual([
			{ text: "first", user: true },
			{ text: "from another extension", user: false },
		]);
		deferred.remember({ text: "later", user: true }); // once loaded, the events go to it directly
		expect(deferred.current?.inputs).toHaveLength(2);
	});

	it("loads at the first need, once, however many ask at the same time", async () => {
		const { deferred, made } = holder();
		await deferred.sessionStart(ctx("s"), true);
		const [a, b] = await Promise.all([deferred.load(), deferred.load()]);
		expect(a).toBe(b);
		expect(made()).toBe(1);
		expect(deferred.ready()).toBe(a);
		await sleep(LOAD_AFTER_MS + 100); // the timer was cancelled: nothing is made again
		expect(made()).toBe(1);
	});

	it("does not load after the session ended", async () => {
		const { deferred, made } = holder();
		await deferred.sessionStart(ctx("s"), true);
		deferred.shutdown();
		await sleep(LOAD_AFTER_MS + 100);
		expect(made()).toBe(0);
	});

	it("starts nothing on a session that ended while its watchdog was loading", async () => {
		let release: () => void = () => {};
		const started: string[] = [];
		const deferred = new DeferredWatchdog<Fake>({
			make: () => new Promise((done) => (release = () => done({ id: 1, started, inputs: [] }))),
			start: (w) => w.started.push("started"),
			replay: () => {},
			failed: () => {},
		});
		await deferred.sessionStart(ctx("s"), true);
		const loading = deferred.load();
		deferred.shutdown();
		release();
		await loading;
		expect(started).toEqual([]); // no monitor, timer or language server after the session's end
	});

	it("keeps a failure that cannot be told inside the timer (no unhandled rejection)", async () => {
		const unhandled: unknown[] = [];
		const onUnhandled = (reason: unknown) => unhandled.push(reason);
		process.on("unhandledRejection", onUnhandled);
		try {
			const deferred = new DeferredWatchdog<Fake>({
				make: async () => {
					throw new Error("no code");
				},
				start: () => {},
				replay: () => {},
				failed: () => {
					throw new Error("no one to tell");
				},
			});
			await deferred.sessionStart(ctx("s"), true);
			await sleep(LOAD_AFTER_MS + 100);
			expect(unhandled).toEqual([]);
		} finally {
			process.off("unhandledRejection", onUnhandled);
		}
	});

	it("says why a load failed, and tries again at the next need", async () => {
		const { deferred, made, errors } = holder({ fail: 2 });
		await deferred.sessionStart(ctx("s"), true);
		await sleep(LOAD_AFTER_MS + 100);
		expect(errors.map((e) => (e as Error).message)).toEqual(["no code"]);
		await expect(deferred.load()).rejects.toThrow("no code");
		const w = await deferred.load();
		expect(made()).toBe(1);
		expect(w.started).toEqual(["s"]);
	});
});
