// The watchdog in CI and scripts (the shell over ledger.ts and report.ts): `--watchdog-strict`
// (or `headless.strict`) makes Pi exit non-zero in print, JSON and RPC mode when the run ends
// with an open blocker; `--watchdog-report FILE` writes the run's report at exit; print mode
// waits, bounded, for work still in flight (a stopped subtree's verification) before it ends.
// Pi has no setter for its exit code: the code is set on `process` at session end, and once
// more on Node's `exit` event, since RPC mode ends with `process.exit(0)`.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { REVIEW_ENTRY } from "../review/index.ts";
import { isPlainObject } from "../util/index.ts";
import { VERIFY_ENTRY } from "../verify/index.ts";
import { type Blocker, HeadlessLedger, type ReviewLike, type SettleSeen, type VerificationLike } from "./ledger.ts";
import { buildReport } from "./report.ts";
import { checkReportPath, writeReport } from "./report-file.ts";

export const STRICT_FLAG = "watchdog-strict";
export const REPORT_FLAG = "watchdog-report";
/** Pi's own failures exit 1; the watchdog's strict check, and a report it could not write, exit this. */
export const STRICT_EXIT_CODE = 3;
/** Past the longest deadline of what print mode waits for, how long more it gives it to wind up. */
const WAIT_GRACE_MS = 5_000;
/** Blockers of a session replaced before the process ends (RPC `new_session`): the next instance reports them. */
const CARRY = Symbol.for("pi-watchdog.headless.earlier");

export interface HeadlessDeps {
	flag(name: string): unknown;
	/** Whether the watchdog is on, and `headless.strict`, for this session. */
	settings(ctx: ExtensionContext): { enabled: boolean; strict: boolean };
	/** Whether a finding stalemated since the last user prompt. */
	stalemated(): boolean;
	/** Background runs started and never seen to end. */
	openRuns?(): string[];
	stderr(text: string): void;
}

type Headed = Pick<ExtensionContext, "mode" | "cwd" | "sessionManager">;

export class Headless {
	private readonly deps: HeadlessDeps;
	private readonly ledger = new HeadlessLedger();
	private readonly inFlight = new Set<{ promise: Promise<unknown>; what: string; deadlineMs: number }>();
	private readonly startedAt = Date.now();
	private waiting = false;

	constructor(deps: HeadlessDeps) {
		this.deps = deps;
	}

	/** Session start: a report path that cannot be written is said now, not only at the end (in the TUI, as a notice). */
	start(ctx: Headed & Partial<Pick<ExtensionContext, "ui">>): void {
		const path = this.reportPath();
		const problem = path === undefined ? undefined : checkReportPath(path, ctx.cwd);
		if (!problem) return;
		const text = `watchdog: --${REPORT_FLAG}: ${problem}`;
		try {
			if (ctx.mode === "tui" && ctx.ui) ctx.ui.notify(text, "error");
			else this.deps.stderr(text);
		} catch {}
	}

	record(line: Record<string, unknown>): void {
		this.ledger.record({ at: new Date().toISOString(), ...line });
	}

	settled(seen: SettleSeen): void {
		this.ledger.settled(seen);
	}

	/** Work print mode should wait for before it exits (bounded by `deadlineMs`). */
	track<T>(promise: Promise<T>, what: string, deadlineMs: number): Promise<T> {
		const item = { promise, what, deadlineMs };
		this.inFlight.add(item);
		void promise.finally(() => this.inFlight.delete(item)).catch(() => {});
		return promise;
	}

	/** While print mode waits at its end, nothing may start a new run (it would outlive the process). */
	closing(): boolean {
		return this.waiting;
	}

	/**
	 * Session end. `quit`: the process ends, so print mode waits, the report is written and the
	 * exit code set. Another reason (the session is replaced): its blockers go to the next one.
	 */
	async end(ctx: ExtensionContext, reason: string): Promise<void> {
		const headless = ctx.mode === "print" || ctx.mode === "json" || ctx.mode === "rpc";
		const reportPath = this.reportPath();
		const { enabled, strict: strictSetting } = this.deps.settings(ctx);
		const strict = headless && (this.deps.flag(STRICT_FLAG) === true || strictSetting);
		const waited = ctx.mode === "print" || ctx.mode === "json" ? await this.waitInFlight() : [];
		if (!strict && reportPath === undefined) return;
		const entries = branch(ctx);
		const reviews = entries.filter((e) => e.customType === REVIEW_ENTRY).map((e) => e.data as ReviewLike);
		const verifications = entries
			.filter((e) => e.customType === VERIFY_ENTRY)
			.map((e) => e.data as VerificationLike & Record<string, unknown>);
		const stalemate = this.deps.stalemated();
		const blockers = this.ledger.blockers({ reviews, verifications, stalemate, openRuns: this.deps.openRuns?.() });
		const carried = globalThis as { [CARRY]?: Blocker[] };
		if (reason !== "quit") {
			carried[CARRY] = [...(carried[CARRY] ?? []), ...blockers];
			return;
		}
		const earlier = carried[CARRY] ?? [];
		carried[CARRY] = [];
		const all = [...earlier, ...blockers];
		const failed = strict && all.length > 0;
		const reason_ = !strict
			? "not strict"
			: !enabled
				? "the watchdog is off: nothing was checked"
				: failed
					? `${all.length} open blocker(s)`
					: "no open blocker";
		if (strict && !enabled) this.deps.stderr(`watchdog: --${STRICT_FLAG} with the watchdog off: nothing was checked`);
		if (failed) this.deps.stderr(strictText(all));
		let code = failed ? STRICT_EXIT_CODE : 0;
		if (reportPath !== undefined) {
			const doc = buildReport({
				session: sessionOf(ctx),
				startedAt: this.startedAt,
				endedAt: Date.now(),
				enabled,
				strict,
				exit: { code, reason: reason_ },
				blockers,
				earlier,
				history: this.ledger.history(),
				reviews,
				verifications,
				waited,
			});
			const problem = writeReport(reportPath, ctx.cwd, doc);
			if (problem) {
				this.deps.stderr(`watchdog: --${REPORT_FLAG}: ${problem}`);
				code = STRICT_EXIT_CODE;
			}
		}
		if (code) failWith(code);
	}

	private reportPath(): string | undefined {
		const value = this.deps.flag(REPORT_FLAG);
		return typeof value === "string" && value.trim() ? value : undefined;
	}

	/** Print mode: what is still in flight, awaited up to its longest deadline; says on stderr what it waited for. */
	private async waitInFlight(): Promise<Array<{ what: string; ms: number; done: boolean }>> {
		const items = [...this.inFlight];
		if (!items.length) return [];
		this.waiting = true;
		const start = Date.now();
		const limit = Math.max(...items.map((i) => i.deadlineMs)) + WAIT_GRACE_MS;
		let timer: NodeJS.Timeout | undefined;
		const late = new Promise<false>((resolve) => {
			timer = setTimeout(() => resolve(false), limit);
		});
		const each = items.map((i) =>
			Promise.race([
				i.promise.then(
					() => true,
					() => true,
				),
				late,
			]).then((done) => ({
				what: i.what,
				ms: Date.now() - start,
				done,
			})),
		);
		const waited = await Promise.all(each);
		clearTimeout(timer);
		this.waiting = false;
		const names = waited.map(
			(w) => `${w.what} (${(w.ms / 1000).toFixed(1)} s${w.done ? "" : ", gave up at its deadline"})`,
		);
		this.deps.stderr(`watchdog: waited for ${names.join(", ")} before exiting`);
		return waited;
	}
}

/** Non-zero unless Pi already chose a failure of its own; RPC mode's `process.exit(0)` is overridden on `exit`. */
function failWith(code: number): void {
	if (!process.exitCode) process.exitCode = code;
	process.once("exit", (exitCode) => {
		if (exitCode === 0) process.exitCode = code;
	});
}

function strictText(blockers: Blocker[]): string {
	const lines = blockers.slice(0, 10).map((b) => `  ${b.kind}: ${b.summary}${b.source ? ` [${b.source}]` : ""}`);
	if (blockers.length > 10) lines.push(`  … ${blockers.length - 10} more`);
	return [`watchdog: --${STRICT_FLAG}: the run ended with ${blockers.length} open blocker(s):`, ...lines].join("\n");
}

function branch(ctx: Headed): Array<{ customType?: string; data?: unknown }> {
	try {
		return ctx.sessionManager
			.getBranch()
			.filter((e) => e.type === "custom" && isPlainObject((e as { data?: unknown }).data)) as Array<{
			customType?: string;
			data?: unknown;
		}>;
	} catch {
		return [];
	}
}

function sessionOf(ctx: Headed): { id: string; file?: string; cwd: string; mode: string } {
	let id = "unknown";
	let file: string | undefined;
	try {
		id = ctx.sessionManager.getSessionId();
		file = ctx.sessionManager.getSessionFile();
	} catch {}
	return { id, ...(file ? { file } : {}), cwd: ctx.cwd, mode: ctx.mode };
}
