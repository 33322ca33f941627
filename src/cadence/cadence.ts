// Cadence reviews: every N tool results (N ≥ 5, off by default) the model review runs in
// the background without holding the agent up; what it finds is steered in after the current
// tool, before the next step. At most one runs at a time; the boundary cancels a running one,
// so a run is never reviewed twice at once.

export interface CadenceHost<C> {
	/** Reviews the run so far; resolves when done (cancelled reviews resolve too). */
	review(ctx: C, cancel: AbortSignal): Promise<void>;
}

export class Cadence<C> {
	private readonly host: CadenceHost<C>;
	private count = 0;
	private running?: AbortController;
	/** The promise of the running review, for tests and shutdown. */
	current?: Promise<void>;
	reviews = 0;

	constructor(host: CadenceHost<C>) {
		this.host = host;
	}

	/** `everyN`: tool results between reviews from the settings in effect; 0 or false means off. */
	onToolResult(ctx: C, everyN: number | false): void {
		const n = everyN;
		if (!n || n < 5) return;
		this.count++;
		if (this.count < n || this.running) return;
		this.count = 0;
		const cancel = new AbortController();
		this.running = cancel;
		this.reviews++;
		this.current = this.host.review(ctx, cancel.signal).finally(() => {
			if (this.running === cancel) this.running = undefined;
		});
	}

	get active(): boolean {
		return this.running !== undefined;
	}

	/** Stops a running cadence review (the boundary, new input, shutdown). */
	cancel(): void {
		this.running?.abort();
		this.running = undefined;
	}

	/** A new run or prompt starts counting afresh. */
	resetCount(): void {
		this.count = 0;
	}
}
