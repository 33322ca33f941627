// One typescript-language-server process, spoken to over stdio with vscode-jsonrpc. It runs
// in its own process group so that stopping it also stops the tsserver processes it starts;
// every request is bounded by a deadline. Diagnostics are pulled per file through tsserver's
// own *DiagnosticsSync commands, so an answer is definite and nothing is asked of the whole
// workspace.
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { MessageConnection } from "vscode-jsonrpc/node";
import type { TsServerDiagnostic } from "./diagnostics.ts";
import { absolutePath } from "./locate.ts";
import { waitForGroupGone } from "./process-tree.ts";
import { languageOf } from "./languages.ts";
import { nodeOptionsWith } from "./server-heap.ts";
import { STDERR_TAIL, tsserverExit } from "./server-exit.ts";
import { importLines, rangeChange } from "./text-change.ts";
import { readFileInRoot } from "../util/index.ts";

// Loaded when the first server starts, not with Pi: most sessions never start one.
let rpcModule: typeof import("vscode-jsonrpc/node") | undefined;
const rpc = () =>
	(rpcModule ??= createRequire(import.meta.url)("vscode-jsonrpc/node") as typeof import("vscode-jsonrpc/node"));

/** Larger sources are not handed to the server (tsserver skips such files too). */
const SOURCE_MAX_BYTES = 8 * 1024 * 1024;

export class TimeoutError extends Error {}

/**
 * Documents kept open between checks (the most recently checked). The server checks every open
 * document again after each change, so more would make a long session cost more with every
 * file it ever checked; some stay open, so that the project stays loaded between checks.
 */
export const OPEN_DOCUMENTS = 20;
/** Closing makes tsserver build its program again (back to the file on disk): the oldest close
 * with a change, which needs that build anyway, or on their own once this many are open. */
export const OPEN_DOCUMENTS_MAX = 2 * OPEN_DOCUMENTS;
/** Files whose import lines are remembered (see LspServer.importsGeneration). */
const IMPORTS_KEPT = 5000;

/** How to start the server, and which TypeScript it is told to use. */
export interface ServerLaunch {
	command: string;
	/** Arguments before `--stdio`. */
	args: string[];
	/** initializationOptions.tsserver: `path` pins a TypeScript, `fallbackPath` is used when the workspace has none. */
	tsserver?: { path: string } | { fallbackPath: string };
	/** tsserver's heap limit in MB (maxTsServerMemory); absent: Node's own. */
	maxMemoryMb?: number;
	/** A file every Node process of the server loads first (NODE_OPTIONS --require; see server-heap.ts). */
	preload?: string;
}

/** What the server reports it runs (its `$/typescriptVersion` notification). */
export interface RunningTypeScript {
	version: string;
	/** "workspace", "user-setting" (the path or fallbackPath we gave) or "bundled" (the server's own). */
	source: string;
}

export class LspServer {
	readonly pid: number;
	private readonly root: string;
	private readonly proc: ChildProcess;
	private readonly conn: MessageConnection;
	private readonly documents = new Map<string, { version: number; text: string }>();
	private changes = 0;
	/** Each file's import lines as last seen (see importLines), open or not. */
	private readonly imports = new Map<string, string>();
	private importChanges = 0;
	private asked = 0;
	private exitInfo?: string;
	private ts?: RunningTypeScript;
	private readonly exitHandlers: Array<(why: string) => void> = [];
	private readonly killOnExit = () => this.killGroup("SIGKILL");

	private constructor(proc: ChildProcess, root: string) {
		this.root = root;
		this.proc = proc;
		this.pid = proc.pid as number;
		const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = rpc();
		this.conn = createMessageConnection(
			new StreamMessageReader(proc.stdout as NonNullable<ChildProcess["stdout"]>),
			new StreamMessageWriter(proc.stdin as NonNullable<ChildProcess["stdin"]>),
		);
		// The server's own requests (configuration, progress) get an empty answer; its notifications are not needed.
		this.conn.onRequest(() => null);
		this.conn.onNotification(() => {});
		this.conn.onNotification("$/typescriptVersion", (p: Partial<RunningTypeScript>) => {
			if (typeof p?.version === "string" && typeof p.source === "string")
				this.ts = { version: p.version, source: p.source };
		});
		this.conn.onError(() => {});
		this.conn.listen();
		// The server's log, kept short: it says why it stopped when its tsserver died under it.
		let stderr = "";
		proc.stderr?.setEncoding("utf8");
		proc.stderr?.on("data", (chunk: string) => {
			stderr = (stderr + chunk).slice(-STDERR_TAIL);
		});
		proc.on("exit", (code, signal) => {
			this.exitInfo = (signal ? `killed by ${signal}` : `exited with code ${code}`) + tsserverExit(stderr);
			process.off("exit", this.killOnExit);
			for (const h of this.exitHandlers) h(this.exitInfo);
		});
		// If Pi itself goes away without a shutdown, take the server with it.
		process.once("exit", this.killOnExit);
	}

	/** Starts the server and completes the LSP handshake within `timeoutMs`. */
	static async start(launch: ServerLaunch, root: string, timeoutMs: number): Promise<LspServer> {
		// A relative PATH entry would resolve inside the repository (the server's cwd): drop them.
		const env: NodeJS.ProcessEnv = { ...process.env, PATH: absolutePath(process.env.PATH ?? "") };
		if (launch.preload) env.NODE_OPTIONS = nodeOptionsWith(env.NODE_OPTIONS, launch.preload);
		const proc = spawn(launch.command, [...launch.args, "--stdio"], {
			cwd: root,
			stdio: ["pipe", "pipe", "pipe"],
			detached: true,
			env,
		});
		const spawned = await new Promise<Error | undefined>((resolve) => {
			proc.once("spawn", () => resolve(undefined));
			proc.once("error", (error) => resolve(error));
		});
		if (spawned) throw new Error(`could not start ${[launch.command, ...launch.args].join(" ")}: ${spawned.message}`);
		proc.stdin?.on("error", () => {});
		const server = new LspServer(proc, root);
		try {
			const rootUri = pathToFileURL(root).href;
			await server.request(
				"initialize",
				{
					processId: process.pid,
					rootUri,
					workspaceFolders: [{ uri: rootUri, name: "root" }],
					capabilities: { textDocument: { synchronization: { didSave: false } }, workspace: { configuration: false } },
					// One tsserver instead of two (no separate syntax server): less memory, the same answers.
					initializationOptions: {
						disableAutomaticTypingAcquisition: true,
						...(launch.maxMemoryMb ? { maxTsServerMemory: launch.maxMemoryMb } : {}),
						tsserver: { logVerbosity: "off", useSyntaxServer: "never", ...launch.tsserver },
					},
				},
				timeoutMs,
			);
			server.notify("initialized", {});
			return server;
		} catch (error) {
			server.killGroup("SIGKILL");
			await waitForGroupGone(server.pid, 2000);
			throw error;
		}
	}

	/**
	 * Whether the server can still take a request. Its pipe closes as the process dies, a moment before Node
	 * reports the exit: a check in that moment would write to a closed pipe and count the failure as final,
	 * where a dead server is restarted.
	 */
	get alive(): boolean {
		return this.exitInfo === undefined && this.proc.stdin?.destroyed !== true;
	}

	/** The TypeScript the server reported it loaded, once it has said so. */
	get typescript(): RunningTypeScript | undefined {
		return this.ts;
	}

	get exitReason(): string | undefined {
		return this.exitInfo;
	}

	onExit(handler: (why: string) => void): void {
		this.exitHandlers.push(handler);
	}

	/**
	 * How many times a text was handed over (opened, changed, closed): an answer the server gave
	 * at one generation may differ at the next, and stays true while it holds.
	 */
	get generation(): number {
		return this.changes;
	}

	/**
	 * How many times a file's imports may have changed (a file seen for the first time, its import
	 * lines edited, a file gone): which files import which holds while this stays the same.
	 */
	get importsGeneration(): number {
		return this.importChanges;
	}

	/**
	 * Opens the file, or sends its new text when it changed since the server last saw it.
	 * `importer`: the server named this file as an importer, so it already knows the file's
	 * imports as they are (seeing it the first time changes nothing).
	 */
	sync(absPath: string, text: string, importer = false): void {
		const uri = pathToFileURL(absPath).href;
		const known = this.documents.get(absPath);
		this.noteImports(absPath, text, importer);
		if (!known) {
			this.notify("textDocument/didOpen", {
				textDocument: { uri, languageId: languageOf(absPath) ?? "typescript", version: 1, text },
			});
			this.documents.set(absPath, { version: 1, text });
			this.changes++;
			return;
		}
		// The change makes tsserver build its program again: the closes ride on that one build.
		if (known.text !== text) this.closeOldest(OPEN_DOCUMENTS, new Set([absPath]));
		// Most recently used last: the oldest open documents are the first closed (closeOldest).
		this.documents.delete(absPath);
		if (known.text !== text) {
			// The changed range only: tsserver's incremental parser then keeps the rest of the file's tree.
			const change = rangeChange(known.text, text);
			if (!change) {
				// tsserver would put any range (the whole text's too) elsewhere in this text: it is opened afresh.
				this.notify("textDocument/didClose", { textDocument: { uri } });
				this.changes++;
				this.sync(absPath, text, importer);
				return;
			}
			const version = known.version + 1;
			this.notify("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [change] });
			this.documents.set(absPath, { version, text });
			this.changes++;
		} else this.documents.set(absPath, known);
	}

	/** Syncs the file from disk; false when it cannot be read (deleted). */
	syncFromDisk(absPath: string, importer = false): boolean {
		// The agent may have left a FIFO or a link out of the repository there: never wait on it, never follow it out.
		const read = readFileInRoot(absPath, { root: this.root, maxBytes: SOURCE_MAX_BYTES, overLimit: "refuse" });
		if (read.state !== "ok") {
			if (this.imports.delete(absPath)) this.importChanges++;
			this.close(absPath);
			return false;
		}
		this.sync(absPath, read.text, importer);
		return true;
	}

	close(absPath: string): void {
		if (!this.documents.delete(absPath)) return;
		this.changes++;
		this.notify("textDocument/didClose", { textDocument: { uri: pathToFileURL(absPath).href } });
	}

	/**
	 * Closes the least recently used documents beyond `keep` (never those in `except`). The server
	 * checks every open document in the background after each change, so what stays open is what
	 * a long session costs; a few stay open so that the project stays loaded between checks.
	 */
	closeOldest(keep: number, except: ReadonlySet<string>): void {
		let excess = this.documents.size - keep;
		for (const path of [...this.documents.keys()]) {
			if (excess <= 0) break;
			if (except.has(path)) continue;
			this.close(path);
			excess--;
		}
	}

	private noteImports(absPath: string, text: string, importer: boolean): void {
		const imports = importLines(text);
		const before = this.imports.get(absPath);
		if (before === imports) return;
		// Bounded: past the bound the oldest are forgotten (seeing such a file again counts as a change).
		if (this.imports.size >= IMPORTS_KEPT) this.imports.delete(this.imports.keys().next().value as string);
		this.imports.set(absPath, imports);
		if (before !== undefined || !importer) this.importChanges++;
	}

	get openCount(): number {
		return this.documents.size;
	}

	/** Syntactic and semantic diagnostics of one open file: its errors, warnings and messages. */
	errors(absPath: string, timeoutMs: number): Promise<TsServerDiagnostic[]> {
		return this.diagnosticsOf(["syntacticDiagnosticsSync", "semanticDiagnosticsSync"], absPath, timeoutMs);
	}

	/** Suggestion diagnostics of one open file (hints only: they never become findings). */
	hints(absPath: string, timeoutMs: number): Promise<TsServerDiagnostic[]> {
		return this.diagnosticsOf(["suggestionDiagnosticsSync"], absPath, timeoutMs);
	}

	private async diagnosticsOf(kinds: string[], absPath: string, timeoutMs: number): Promise<TsServerDiagnostic[]> {
		const replies = await Promise.all(
			kinds.map((kind) => this.tsserver<TsServerDiagnostic[]>(kind, { file: pathToFileURL(absPath).href }, timeoutMs)),
		);
		return replies.flatMap((r) => (Array.isArray(r) ? r : []));
	}

	/** Files that import this one (it must be open). */
	async importers(absPath: string, timeoutMs: number): Promise<string[]> {
		const body = await this.tsserver<{ refs?: Array<{ file?: string }> }>(
			"fileReferences",
			{ file: pathToFileURL(absPath).href },
			timeoutMs,
		);
		return [...new Set((body?.refs ?? []).map((r) => r.file).filter((f): f is string => typeof f === "string"))];
	}

	private async tsserver<T>(command: string, args: unknown, timeoutMs: number): Promise<T | undefined> {
		const reply = await this.request<{ body?: T }>(
			"workspace/executeCommand",
			{ command: "typescript.tsserverRequest", arguments: [command, args] },
			timeoutMs,
		);
		return reply?.body;
	}

	/** Requests sent to this server so far (status shows it: reused answers cost none). */
	get requests(): number {
		return this.asked;
	}

	private async request<T>(method: string, params: unknown, timeoutMs: number): Promise<T> {
		if (!this.alive) throw new Error(`the language server ${this.exitInfo ?? "closed its input (it is exiting)"}`);
		this.asked++;
		const cancel = new (rpc().CancellationTokenSource)();
		let timer: ReturnType<typeof setTimeout> | undefined;
		let onExit: ((why: string) => void) | undefined;
		try {
			return await Promise.race([
				this.conn.sendRequest<T>(method, params, cancel.token),
				new Promise<never>((_, reject) => {
					timer = setTimeout(() => {
						cancel.cancel();
						reject(new TimeoutError(`no answer to ${method} within ${timeoutMs} ms`));
					}, timeoutMs);
				}),
				new Promise<never>((_, reject) => {
					onExit = (why) => reject(new Error(`the language server ${why}`));
					this.exitHandlers.push(onExit);
				}),
			]);
		} finally {
			clearTimeout(timer);
			if (onExit) this.exitHandlers.splice(this.exitHandlers.indexOf(onExit), 1);
			cancel.dispose();
		}
	}

	/**
	 * Sends a notification. A server that has just died makes the write fail; that rejection
	 * must not go unhandled (it would take Pi down): the exit handler reports the death.
	 */
	private notify(method: string, params?: unknown): void {
		(params === undefined ? this.conn.sendNotification(method) : this.conn.sendNotification(method, params)).catch(
			() => {},
		);
	}

	/** Asks the server to shut down, then makes sure its whole process group is gone. */
	async stop(graceMs = 1000): Promise<void> {
		if (this.alive) {
			try {
				await this.request("shutdown", undefined, graceMs);
				this.notify("exit");
			} catch {
				// unresponsive: killed below
			}
		}
		await this.waitForExit(graceMs);
		this.killGroup("SIGTERM");
		await this.waitForExit(graceMs);
		this.killGroup("SIGKILL");
		await waitForGroupGone(this.pid, 2000);
		this.conn.dispose();
		process.off("exit", this.killOnExit);
	}

	/** Kills the server and everything it started (tsserver), at once. */
	killGroup(signal: NodeJS.Signals): void {
		try {
			process.kill(-this.pid, signal);
		} catch {
			// already gone
		}
	}

	waitForExit(ms: number): Promise<void> {
		if (!this.alive) return Promise.resolve();
		return new Promise((resolve) => {
			const timer = setTimeout(resolve, ms);
			this.proc.once("exit", () => {
				clearTimeout(timer);
				resolve();
			});
		});
	}
}
