// The session's watchdog, made when it is first needed. A session that starts with the watchdog
// off (dormant.ts) does not load the watchdog's code at start: it loads LOAD_AFTER_MS later (the
// fleet's first mailbox poll and the footer's notices need it then), or at once when a command,
// the subagent tool or a message of ours needs it. A short `pi -p` with the watchdog off then
// never loads it. Until it loads, an off watchdog has nothing to do with Pi's events; the prompts
// it would have recorded are kept and handed over when it loads.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

// Two seconds, not half of one: a `pi -p` that a model answers at once took more than half a second on a busy machine,
// and then loaded the watchdog for nothing just before it exited (the startup bench's off rounds on a loaded run).
export const LOAD_AFTER_MS = 2_000;
/** Prompts kept for an unloaded watchdog: far more than a session sends in its first two seconds. */
const MAX_EARLY_INPUTS = 50;

export interface EarlyInput {
	text: string;
	/** A person's prompt (typed or over RPC), not another extension's message. */
	user: boolean;
}

export interface DeferredDeps<W> {
	/** Loads the watchdog's code and makes this session's watchdog. */
	make(): Promise<W>;
	/** What session_start does with a watchdog. */
	start(watchdog: W, ctx: ExtensionContext): void;
	/** The inputs met while it was not loaded, in order. */
	replay(watchdog: W, inputs: EarlyInput[]): void;
	/** A load that nobody awaited failed. */
	failed(error: unknown, ctx: ExtensionContext): void;
}

export class DeferredWatchdog<W> {
	private watchdog?: W;
	private loading?: Promise<W>;
	private ctx?: ExtensionContext;
	private timer?: ReturnType<typeof setTimeout>;
	private early: EarlyInput[] = [];
	private readonly deps: DeferredDeps<W>;

	constructor(deps: DeferredDeps<W>) {
		this.deps = deps;
	}

	/** The watchdog, once loaded. */
	get current(): W | undefined {
		return this.watchdog;
	}

	/** The watchdog when it is loaded or loading; undefined while a dormant session has not needed it. */
	ready(): W | Promise<W> | undefined {
		return this.watchdog ?? (this.timer ? undefined : this.loading);
	}

	/** Pi's session_start: a session that starts dormant loads its watchdog later, any other now. */
	async sessionStart(ctx: ExtensionContext, dormant: boolean): Promise<void> {
		this.ctx = ctx;
		if (this.watchdog) return this.deps.start(this.watchdog, ctx);
		if (!dormant || this.loading) {
			await this.load();
			return;
		}
		this.early = [];
		clearTimeout(this.timer);
		this.timer = setTimeout(() => {
			// Nobody awaits this load: its failure is told here, and telling it must not throw out of a timer.
			this.load().catch((error) => {
				try {
					this.deps.failed(error, ctx);
				} catch {
					// nothing left to tell it to
				}
			});
		}, LOAD_AFTER_MS);
		this.timer.unref?.();
	}

	/** Loads (once) and starts the watchdog on the session; what needs it now awaits this. */
	load(): Promise<W> {
		clearTimeout(this.timer);
		this.timer = undefined;
		this.loading ??= this.deps.make().then(
			(watchdog) => {
				this.watchdog = watchdog;
				const early = this.early;
				this.early = [];
				if (this.ctx) this.deps.start(watchdog, this.ctx);
				if (early.length) this.deps.replay(watchdog, early);
				return watchdog;
			},
			(error: unknown) => {
				this.loading = undefined; // the next need tries again, and says why if it fails again
				throw error;
			},
		);
		return this.loading;
	}

	/** An input Pi's `input` event brought while the watchdog is not loaded. */
	remember(input: EarlyInput): void {
		if (this.watchdog || !this.timer) return;
		this.early.push(input);
		if (this.early.length > MAX_EARLY_INPUTS) this.early.shift();
	}

	/** Session end: a load still waiting is not needed any more, and one under way starts nothing. */
	shutdown(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		this.early = [];
		this.ctx = undefined;
	}
}
