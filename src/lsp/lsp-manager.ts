// The LSP pre-pass of one repository: a warm typescript-language-server kept between
// reviews (shut down when idle and at session end), the changed files and their direct
// importers checked within lsp.timeoutMs, and only new errors and warnings raised. Which server
// and TypeScript run depends on whether the project is trusted (see locate.ts), asked at each check.
import { existsSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { ServerAnswers } from "./answers.ts";
import {
	type Diagnostic,
	diagnosticFindings,
	diagnosticsSignal,
	fromTsServer,
	newSinceLastReport,
	type Reported,
	type TsServerDiagnostic,
} from "./diagnostics.ts";
import { type LocatedServer, type LocateOptions, locateServer } from "./locate.ts";
import { languageOf } from "./languages.ts";
import { LspServer, OPEN_DOCUMENTS, OPEN_DOCUMENTS_MAX, type ServerLaunch, TimeoutError } from "./lsp-server.ts";
import { groupRssKb } from "./process-tree.ts";
import { SERVER_NODE_FLAGS, SERVER_PRELOAD } from "./server-heap.ts";

export type { LspCheckResult, LspSettings, LspState, LspStatus, TypeScriptInUse } from "./lsp-types.ts";
import {
	type LspCheckResult,
	type LspSettings,
	type LspState,
	type LspStatus,
	SERVER_MEMORY_MB,
	type TypeScriptInUse,
} from "./lsp-types.ts";

const NOTHING = Promise.resolve();
const none = (skipped: string): LspCheckResult => ({ findings: [], diagnostics: [], checked: [], skipped });
/**
 * Edits in one burst (a turn's parallel calls) are handed over at once but checked together
 * after this quiet time: checking after each one would make the server rebuild its program for
 * every intermediate state, and answer the end-of-run check only after all of that.
 */
const PREFETCH_QUIET_MS = 30;

export class LspManager {
	readonly root: string;
	private server?: LspServer;
	private answers?: ServerAnswers;
	/** Files edited since the last check, waiting for the quiet time. */
	private readonly queued = new Set<string>();
	private prefetchTimer?: ReturnType<typeof setTimeout>;
	/** Edits' early checks (prefetch) under way. */
	private warming = 0;
	/** Counts checks, so that hints arriving late are kept only for the latest one. */
	private checks = 0;
	private located?: LocatedServer;
	/** The launch the current server was started with: a different one means a restart. */
	private launchKey?: string;
	private readonly locateOptions: LocateOptions;
	private restartsLeft = 1;
	private failure?: string;
	private reported: Reported = new Map();
	private idleTimer?: ReturnType<typeof setTimeout>;
	private info: Omit<LspStatus, "state" | "server" | "pid" | "rssKb"> = { filesChecked: 0, infos: 0, hints: 0 };
	private everStarted = false;
	/** A start ahead of the first check (session start); a check waits for it rather than start a second server. */
	private starting?: Promise<void>;
	/** What the last server said about its TypeScript (kept for status when it is cold). */
	private lastReported?: { version: string; source: string };
	/** No server was found at the last check. */
	private unavailable = false;

	constructor(root: string, locateOptions: LocateOptions = {}) {
		this.root = root;
		this.locateOptions = locateOptions;
	}

	status(): LspStatus {
		const state: LspState = this.failure
			? "failed"
			: this.unavailable
				? "unavailable"
				: this.server?.alive
					? "warm"
					: this.everStarted
						? "cold"
						: "not started";
		const typescript = this.located && typescriptInUse(this.located, this.server?.typescript ?? this.lastReported);
		return {
			state,
			...(this.located ? { server: this.located } : {}),
			...(typescript ? { typescript } : {}),
			...(this.server?.alive
				? {
						pid: this.server.pid,
						rssKb: groupRssKb(this.server.pid),
						requests: this.server.requests,
						openDocuments: this.server.openCount,
					}
				: {}),
			...this.info,
		};
	}

	/**
	 * Checks the changed TypeScript/JavaScript files (relative to the root) and their importers.
	 * `trusted`: whether the project is trusted now; only then may its own server or TypeScript
	 * run. Not saying means untrusted.
	 */
	async check(changedPaths: string[], settings: LspSettings, trusted = false): Promise<LspCheckResult> {
		const changed = changedPaths
			.filter((p) => languageOf(p) && !/(^|\/)node_modules\//.test(p))
			.map((p) => this.abs(p));
		const existing = changed.filter((p) => existsSync(p)).slice(0, settings.maxFiles);
		if (!existing.length) return none("no changed TypeScript or JavaScript file to check");
		const found = locateServer(this.root, trusted, this.locateOptions);
		const located = "reason" in found ? undefined : found;
		const key = located && launchKey(located, settings);
		if (key !== this.launchKey) {
			// Trust was granted or withdrawn since the server started: never keep running the old choice.
			await this.discardServer();
			this.launchKey = key;
			this.failure = undefined;
			this.restartsLeft = 1;
			this.lastReported = undefined;
		}
		this.located = located;
		this.unavailable = !located;
		if ("reason" in found) {
			this.info = { ...this.info, lastResult: `unavailable: ${found.reason}` };
			return none(`the language server is unavailable: ${found.reason}`);
		}
		if (this.failure) return none(`the language server failed earlier this session: ${this.failure}`);
		await this.starting;
		const started = Date.now();
		const deadline = started + settings.timeoutMs;
		try {
			for (;;) {
				try {
					return await this.checkOnce(existing, settings, deadline, started);
				} catch (error) {
					// A server that died or stopped answering is stopped; it may be restarted once per session.
					const recoverable = !this.server?.alive || error instanceof TimeoutError;
					await this.discardServer();
					const message = error instanceof Error ? error.message : String(error);
					if (recoverable && this.restartsLeft > 0) {
						this.restartsLeft--;
						if (Date.now() < deadline) continue;
						this.info = {
							...this.info,
							lastDurationMs: Date.now() - started,
							lastResult: `error: ${message}; it will be restarted once, at the next review`,
						};
						return none(`the language server failed: ${message}`);
					}
					this.failure = message;
					this.info = { ...this.info, lastDurationMs: Date.now() - started, lastResult: `failed: ${message}` };
					return none(`the language server failed: ${message}`);
				}
			}
		} finally {
			this.armIdle(settings.idleMs);
		}
	}

	private async checkOnce(
		files: string[],
		settings: LspSettings,
		deadline: number,
		started: number,
	): Promise<LspCheckResult> {
		const left = () => Math.max(1, deadline - Date.now());
		this.dropQueued(); // this check asks what the edit-time one would have
		if (!this.server?.alive) {
			if (Date.now() >= deadline) throw new TimeoutError("no time left to start the language server");
			this.server = await LspServer.start(launchOf(this.located as LocatedServer, settings), this.root, left());
			this.answers = new ServerAnswers(this.server);
			this.everStarted = true;
		}
		const server = this.server;
		// A file that cannot be read safely (gone, a FIFO, a link out) is not asked about.
		const readable = files.filter((f) => server.syncFromDisk(f));
		const { checked: toCheck, errors, hints } = await this.ask(readable, settings.maxFiles, left);
		const diagnostics = (await errors).flat();
		const checked = toCheck.map((f) => this.rel(f));
		this.lastReported = server.typescript ?? this.lastReported;
		const { fresh, reported } = newSinceLastReport(this.reported, checked, diagnostics);
		this.reported = reported;
		const count = (list: Diagnostic[], s: Diagnostic["severity"]) => list.filter((d) => d.severity === s).length;
		const check = ++this.checks;
		this.info = {
			filesChecked: checked.length,
			lastDurationMs: Date.now() - started,
			lastResult:
				`${count(diagnostics, "error")} error(s), ${count(diagnostics, "warning")} warning(s) ` +
				`in ${checked.length} file(s); ${fresh.length} new`,
			infos: count(diagnostics, "info"),
			hints: 0,
		};
		// Hints never become findings: they are counted for status when they come, not waited for.
		void hints.then(
			(more) => {
				if (check !== this.checks) return;
				const all = [...diagnostics, ...more.flat()];
				this.info = { ...this.info, infos: count(all, "info"), hints: count(all, "hint") };
			},
			() => {},
		);
		// Documents close with the next change (LspServer.sync); when many are open without one, once
		// this check's answers are all in (not while an edit's early questions are out: closing changes
		// the generation their answers are kept for).
		void hints
			.catch(() => {})
			.then(() => {
				if (check !== this.checks || this.server !== server || this.warming || this.queued.size) return;
				if (server.openCount > OPEN_DOCUMENTS_MAX) server.closeOldest(OPEN_DOCUMENTS, new Set(toCheck));
			});
		return {
			findings: diagnosticFindings(fresh),
			signal: diagnosticsSignal(diagnostics, checked.length),
			diagnostics,
			checked,
		};
	}

	/**
	 * The questions of one check, in the order the server should answer them (it answers one at
	 * a time): the files' importers and errors, then the importers' errors (opened, within the
	 * file budget), then every file's hints. Answers already given at this generation are reused.
	 */
	private async ask(
		readable: string[],
		maxFiles: number,
		left: () => number,
	): Promise<{ checked: string[]; errors: Promise<Diagnostic[][]>; hints: Promise<Diagnostic[][]> }> {
		const server = this.server as LspServer;
		const answers = this.answers as ServerAnswers;
		const asDiagnostics = (f: string) => (list: TsServerDiagnostic[]) => list.map((d) => fromTsServer(this.rel(f), d));
		const errorsOf = (f: string) => answers.errors(f, left()).then(asDiagnostics(f));
		const importers =
			readable.length < maxFiles ? Promise.all(readable.map((f) => answers.importers(f, left()))) : Promise.resolve([]);
		// Asked before the importers are known, so the server never waits on us in between.
		const own = readable.map(errorsOf);
		for (const answer of own) answer.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
		const toCheck = [...readable];
		for (const importer of (await importers).flat()) {
			if (toCheck.length >= maxFiles) break;
			if (
				toCheck.includes(importer) ||
				!this.inside(importer) ||
				!languageOf(importer) ||
				importer.includes(`${sep}node_modules${sep}`)
			)
				continue;
			if (server.syncFromDisk(importer, true)) toCheck.push(importer);
		}
		const errors = Promise.all([...own, ...toCheck.slice(readable.length).map(errorsOf)]);
		const hints = Promise.all(toCheck.map(async (f) => asDiagnostics(f)(await answers.hints(f, left()))));
		hints.catch(() => {});
		return { checked: toCheck, errors, hints };
	}

	/**
	 * An edit as the agent makes it: when the server is warm, hand it the new text at once and,
	 * after a short quiet time, ask what the check at the end of the run will ask, so that the
	 * check mostly finds the answers ready. Never starts a server, never raises anything.
	 */
	prefetch(paths: string[], settings: Pick<LspSettings, "timeoutMs" | "maxFiles">): void {
		const server = this.server;
		if (!server?.alive || this.failure) return;
		for (const path of paths) {
			if (!languageOf(path)) continue;
			const abs = this.abs(path);
			if (this.inside(abs) && server.syncFromDisk(abs)) this.queued.add(abs);
		}
		if (!this.queued.size) return;
		clearTimeout(this.prefetchTimer);
		this.prefetchTimer = setTimeout(() => void this.warm(settings).catch(() => {}), PREFETCH_QUIET_MS);
		this.prefetchTimer.unref?.();
	}

	private async warm(settings: Pick<LspSettings, "timeoutMs" | "maxFiles">): Promise<void> {
		const files = [...this.queued].slice(0, settings.maxFiles);
		this.dropQueued();
		if (!this.server?.alive || !files.length) return;
		const deadline = Date.now() + settings.timeoutMs;
		this.warming++;
		try {
			const { errors, hints } = await this.ask(files, settings.maxFiles, () => Math.max(1, deadline - Date.now()));
			await Promise.allSettled([errors, hints]);
		} finally {
			this.warming--;
		}
	}

	private dropQueued(): void {
		clearTimeout(this.prefetchTimer);
		this.prefetchTimer = undefined;
		this.queued.clear();
	}

	/** Starts the server now (session start) so the first review finds it warm; a failure is silent (a check retries). */
	start(settings: LspSettings, trusted = false): Promise<void> {
		const found = locateServer(this.root, trusted, this.locateOptions);
		if (this.server?.alive || this.failure || this.starting || "reason" in found) return this.starting ?? NOTHING;
		this.launchKey = launchKey(found, settings); // no server runs yet: the choice the first check would make
		this.located = found;
		const started = LspServer.start(launchOf(found, settings), this.root, settings.timeoutMs).then((server) => {
			[this.server, this.answers, this.everStarted] = [server, new ServerAnswers(server), true];
			this.armIdle(settings.idleMs);
		});
		this.starting = started.catch(() => {}).finally(() => (this.starting = undefined));
		return this.starting;
	}

	/** Stops the server (idle, session end). It starts again on the next check. */
	async shutdown(): Promise<void> {
		clearTimeout(this.idleTimer);
		this.idleTimer = undefined;
		this.dropQueued();
		await this.discardServer();
	}

	private async discardServer(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		this.answers = undefined;
		if (server) await server.stop();
	}

	private armIdle(idleMs: number): void {
		clearTimeout(this.idleTimer);
		if (!this.server?.alive) return;
		this.idleTimer = setTimeout(() => void this.shutdown(), idleMs);
		this.idleTimer.unref?.();
	}

	private abs(path: string): string {
		return isAbsolute(path) ? path : join(this.root, path);
	}

	private rel(path: string): string {
		return relative(this.root, path).split(sep).join("/");
	}

	private inside(path: string): boolean {
		const r = relative(this.root, path);
		return !!r && !r.startsWith("..") && !isAbsolute(r);
	}
}

function launchOf(located: LocatedServer, settings: Pick<LspSettings, "serverMemoryMb">): ServerLaunch {
	const ts = located.typescript;
	const memory = settings.serverMemoryMb ?? SERVER_MEMORY_MB;
	const bundled = located.from === "bundled";
	return {
		command: located.command,
		args: bundled ? [...SERVER_NODE_FLAGS, ...located.args] : located.args,
		...(ts ? { tsserver: ts.option === "path" ? { path: ts.tsserver } : { fallbackPath: ts.tsserver } } : {}),
		...(memory > 0 ? { maxMemoryMb: memory } : {}),
		...(bundled && SERVER_PRELOAD ? { preload: SERVER_PRELOAD } : {}),
	};
}

function launchKey(located: LocatedServer, settings: Pick<LspSettings, "serverMemoryMb">): string {
	return JSON.stringify(launchOf(located, settings));
}

/** Which TypeScript runs, from what the server reported, or what it was told before it has said. */
function typescriptInUse(
	located: LocatedServer,
	reported: { version: string; source: string } | undefined,
): TypeScriptInUse {
	const ts = located.typescript;
	if (ts?.option === "path")
		return {
			from: "bundled",
			version: reported?.version ?? ts.version,
			why: ts.trusted
				? "the project is trusted but has no TypeScript of its own"
				: "the project is not trusted, so its own TypeScript is never loaded",
		};
	const version = reported ? { version: reported.version } : {};
	if (reported?.source === "workspace")
		return { from: "workspace", ...version, why: "the project is trusted and has its own TypeScript" };
	if (reported?.source === "user-setting")
		return { from: "bundled", ...version, why: "the project is trusted but has no TypeScript of its own" };
	if (reported) return { from: "the server's own", ...version, why: "the bundled TypeScript could not be found" };
	return {
		from: ts ? "workspace or bundled" : "the server's own",
		why: ts
			? "the project is trusted, so its own TypeScript is preferred; the server has not said yet which it loaded"
			: "the bundled TypeScript could not be found",
	};
}
