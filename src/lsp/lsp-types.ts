// What the LSP pre-pass takes and gives: its settings, its state for status, a check's result.
import type { Finding } from "../findings/index.ts";
import type { Diagnostic } from "./diagnostics.ts";
import type { LocatedServer } from "./locate.ts";

/**
 * tsserver's heap limit (MB) unless a setting says otherwise. V8 lets garbage pile up to about
 * 4× the live data before a full collection when the limit is 2 GB or more (Node's default is
 * more on most machines), and about 2× just below (the bundled server's preload makes it 1.3×, see
 * tsserver-preload.cjs). A project needing more than this must raise lsp.serverMemoryMb.
 */
export const SERVER_MEMORY_MB = 2000;

export interface LspSettings {
	timeoutMs: number;
	maxFiles: number;
	idleMs: number;
	/** tsserver's heap limit in MB; 0: Node's own default; absent: SERVER_MEMORY_MB. */
	serverMemoryMb?: number;
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
	/** Requests the running server has been sent. */
	requests?: number;
	/** Documents open in the running server. */
	openDocuments?: number;
}

export interface LspCheckResult {
	findings: Finding[];
	/** The current diagnostics for the reviewer, when a check ran. */
	signal?: string;
	diagnostics: Diagnostic[];
	checked: string[];
	/** Why no check ran (for the reviewer's input, which says so rather than leave it silent). */
	skipped?: string;
}
