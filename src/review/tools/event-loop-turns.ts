// Long loops over model-chosen work (walking a big tree, matching every path) run on Pi's main
// thread. Awaiting an async generator or a resolved promise only runs microtasks, so neither
// Pi's other events nor a deadline's timer get a turn; this hands the event loop one now and
// then, after which the caller checks its abort signal.

/** Longest stretch of synchronous work between two turns of the event loop. */
export const SLICE_MS = 15;

export class EventLoopTurns {
	private since = performance.now();
	private readonly sliceMs: number;

	constructor(sliceMs = SLICE_MS) {
		this.sliceMs = sliceMs;
	}

	/** Lets the event loop run when the current slice is used up; otherwise returns at once. */
	async maybeYield(): Promise<void> {
		if (performance.now() - this.since < this.sliceMs) return;
		await new Promise<void>((resolve) => setImmediate(resolve));
		this.since = performance.now();
	}
}
