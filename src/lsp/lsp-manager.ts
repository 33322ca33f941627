// The LSP pre-pass of one repository: a warm typescript-language-server kept between
// reviews (shut down when idle and at session end), the changed files and their direct
// importers checked within lsp.timeoutMs, and only new errors and warnings raised. Which server
// and TypeScript run depends on whether the project is trusted (see locate.ts), asked at each check.
import { existsSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import type { Finding } from "../findings/index.ts";
import { type Diagnostic, diagnosticFindings, diagnosticsSignal, fromTsServer, newSinceLastReport, type Reported } from "./diagnostics.ts";
import { type LocatedServer, type LocateOptions, locateServer } from "./locate.ts";
import { LspServer, languageOf, type ServerLaunch, TimeoutError } from "./lsp-server.ts";
import { groupRssKb } from "./process-tree.ts";

export interface LspSettings {
	timeoutMs: number;
	maxFiles: number;
	idleMs: number;
}

export type LspState = "not started" | "unavailable" | "warm" | "cold" | "failed";

/** The TypeScript the server runs: the workspace's (trusted projects only) or the bundled one. */
export interface TypeScriptInUse {
	from: "workspace" | "bundled" | "workspace or bundled" | "the server's own";
	/** Absent until the server has said which one it loaded. */
	version?: string;
	why: string;
}

export interface LspStatus {
	state: LspState;
	server?: LocatedServer;
	typescript?: TypeScriptInUse;
	pid?: number;
	filesChecked: number;
	lastDurationMs?: number;
	lastResult?: string;
	infos: number;
	hints: number;
	rssKb?: number;
}

export interface LspCheckResult {
	findings: Finding[];
	/** The current diagnostics for the reviewer, when a check ran. */
	signal?: string;
	diagnostics: Diagnostic[];
	checked: string[];
}

const NONE: LspCheckResult = { findings: [], diagnostics: [], checked: [] };

export class LspManager {
	readonly root: string;
	private server?: LspServer;
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
	/** What the last server said about its TypeScript (kept for status when it is cold). */
	private lastReported?: { version: string; source: string };
	/** No server was found at the last check. */
	private unavailable = false;

	constructor(root: string, locateOptions: LocateOptions = {}) {
		this.root = root;
		this.locateOptions = locateOptions;
	}

	status(): LspStatus {
		const state: LspState = this.failure ? "failed" : this.unavailable ? "unavailable" : this.server?.alive ? "warm" : this.everStarted ? "cold" : "not started";
		const typescript = this.located && typescriptInUse(this.located, this.server?.typescript ?? this.lastReported);
		return {
			state,
			...(this.located ? { server: this.located } : {}),
			...(typescript ? { typescript } : {}),
			...(this.server?.alive ? { pid: this.server.pid, rssKb: groupRssKb(this.server.pid) } : {}),
			...this.info,
		};
	}

	/**
	 * Checks the changed TypeScript/JavaScript files (relative to the root) and their importers.
	 * `trusted`: whether the project is trusted now; only then may its own server or TypeScript
	 * run. Not saying means untrusted.
	 */
	async check(changedPaths: string[], settings: LspSettings, trusted = false): Promise<LspCheckResult> {
		const changed = changedPaths.filter((p) => languageOf(p) && !/(^|\/)node_modules\//.test(p)).map((p) => this.abs(p));
		const existing = changed.filter((p) => existsSync(p)).slice(0, settings.maxFiles);
		if (!existing.length) return NONE;
		const found = locateServer(this.root, trusted, this.locateOptions);
		const located = "reason" in found ? undefined : found;
		const key = located && launchKey(located);
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
			return NONE;
		}
		if (this.failure) return NONE;
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
						this.info = { ...this.info, lastDurationMs: Date.now() - started, lastResult: `error: ${message}; it will be restarted once, at the next review` };
						return NONE;
					}
					this.failure = message;
					this.info = { ...this.info, lastDurationMs: Date.now() - started, lastResult: `failed: ${message}` };
					return NONE;
				}
			}
		} finally {
			this.armIdle(settings.idleMs);
		}
	}

	private async checkOnce(files: string[], settings: LspSettings, deadline: number, started: number): Promise<LspCheckResult> {
		const left = () => Math.max(1, deadline - Date.now());
		if (!this.server?.alive) {
			if (Date.now() >= deadline) throw new TimeoutError("no time left to start the language server");
			this.server = await LspServer.start(launchOf(this.located as LocatedServer), this.root, left());
			this.everStarted = true;
		}
		const server = this.server;
		// A file that cannot be read safely (gone, a FIFO, a link out) is not asked about.
		const readable = files.filter((f) => server.syncFromDisk(f));
		// Direct importers inside the repository, within the same file budget.
		const toCheck = [...readable];
		if (toCheck.length < settings.maxFiles) {
			const found = await Promise.all(readable.map((f) => server.importers(f, left())));
			for (const importer of found.flat()) {
				if (toCheck.length >= settings.maxFiles) break;
				if (toCheck.includes(importer) || !this.inside(importer) || !languageOf(importer) || importer.includes(`${sep}node_modules${sep}`)) continue;
				if (server.syncFromDisk(importer)) toCheck.push(importer);
			}
		}
		const raw = await Promise.all(toCheck.map(async (f) => (await server.diagnostics(f, left())).map((d) => fromTsServer(this.rel(f), d))));
		const diagnostics = raw.flat();
		const checked = toCheck.map((f) => this.rel(f));
		this.lastReported = server.typescript ?? this.lastReported;
		const { fresh, reported } = newSinceLastReport(this.reported, checked, diagnostics);
		this.reported = reported;
		const count = (s: Diagnostic["severity"]) => diagnostics.filter((d) => d.severity === s).length;
		this.info = {
			filesChecked: checked.length,
			lastDurationMs: Date.now() - started,
			lastResult: `${count("error")} error(s), ${count("warning")} warning(s) in ${checked.length} file(s); ${fresh.length} new`,
			infos: count("info"),
			hints: count("hint"),
		};
		return { findings: diagnosticFindings(fresh), signal: diagnosticsSignal(diagnostics, checked.length), diagnostics, checked };
	}

	/**
	 * An edit as the agent makes it: when the server is warm, hand it the new text and let it
	 * start checking now, so the check at the end of the run mostly finds the answers ready.
	 * Never starts a server, never raises anything.
	 */
	prefetch(paths: string[], timeoutMs: number): void {
		const server = this.server;
		if (!server?.alive || this.failure) return;
		for (const path of paths) {
			if (!languageOf(path)) continue;
			const abs = this.abs(path);
			if (!this.inside(abs) || !server.syncFromDisk(abs)) continue;
			void server.diagnostics(abs, timeoutMs).catch(() => {});
		}
	}

	/** Stops the server (idle, session end). It starts again on the next check. */
	async shutdown(): Promise<void> {
		clearTimeout(this.idleTimer);
		this.idleTimer = undefined;
		await this.discardServer();
	}

	private async discardServer(): Promise<void> {
		const server = this.server;
		this.server = undefined;
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

function launchOf(located: LocatedServer): ServerLaunch {
	const ts = located.typescript;
	return { command: located.command, args: located.args, ...(ts ? { tsserver: ts.option === "path" ? { path: ts.tsserver } : { fallbackPath: ts.tsserver } } : {}) };
}

function launchKey(located: LocatedServer): string {
	return JSON.stringify(launchOf(located));
}

/** Which TypeScript runs, from what the server reported, or what it was told before it has said. */
function typescriptInUse(located: LocatedServer, reported: { version: string; source: string } | undefined): TypeScriptInUse {
	const ts = located.typescript;
	if (ts?.option === "path") return { from: "bundled", version: reported?.version ?? ts.version, why: "the project is not trusted, so its own TypeScript is never loaded" };
	const version = reported ? { version: reported.version } : {};
	if (reported?.source === "workspace") return { from: "workspace", ...version, why: "the project is trusted and has its own TypeScript" };
	if (reported?.source === "user-setting") return { from: "bundled", ...version, why: "the project is trusted but has no TypeScript of its own" };
	if (reported) return { from: "the server's own", ...version, why: "the bundled TypeScript could not be found" };
	return { from: ts ? "workspace or bundled" : "the server's own", why: ts ? "the project is trusted, so its own TypeScript is preferred; the server has not said yet which it loaded" : "the bundled TypeScript could not be found" };
}
