// The shape of the reviewer's own tools. They run inside the watchdog (not through Pi's tool
// machinery), so they validate their arguments themselves and report every failure as text.
import type { TSchema } from "typebox";
import type { GitRunner } from "../../git/index.ts";

export interface ReviewerToolResult {
	text: string;
	isError: boolean;
}

export interface ReviewerTool {
	name: string;
	/** What the model reads to decide when and how to call the tool. */
	description: string;
	parameters: TSchema;
	/** Never throws: bad arguments, refused paths and failures come back with `isError`. */
	execute(args: unknown, signal: AbortSignal): Promise<ReviewerToolResult>;
}

export interface ReviewerToolOptions {
	/** Every path the tools touch must stay inside this folder (after resolving symlinks). */
	root: string;
	/** Runs git for `watchdog_diff`; defaults to a runner in `root`. */
	git?: GitRunner;
	/** Commit id the session started at; `watchdog_diff` is offered only when this is set. */
	baseline?: string | null;
	/** Cap on the characters of one tool result (default 20,000). */
	maxOutputChars?: number;
	/** How long grep's regular expression may run on one file (default 5,000 ms). */
	regexTimeoutMs?: number;
}

export const DEFAULT_MAX_OUTPUT_CHARS = 20_000;

export function ok(text: string): ReviewerToolResult {
	return { text, isError: false };
}

export function fail(text: string): ReviewerToolResult {
	return { text, isError: true };
}
