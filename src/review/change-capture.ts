// The thin shell around the reviewer's "change" section: the diff of the run's changed paths
// since the session-start commit (the same git reading as `watchdog_diff`), and the content of
// the new (untracked) ones, read through the guarded reader. Bounded: a few hundred paths, a
// few dozen new files of at most 32 KiB each, and the git calls under the review's signal and a
// timeout. What it records is all the pure renderer (change-text.ts) needs. The settle reads it
// ahead, beside the LSP pre-pass (the two do not depend on each other); the review takes that
// reading when it covers the same paths in the same place.
import { join } from "node:path";
import type { GitRunner } from "../git/index.ts";
import { readFileInRoot } from "../util/index.ts";
import { isCommitId, literalPathspec, readChange } from "./tools/diff-tool.ts";

/** Paths named to git at most; a run that changed more is cut in the rendering anyway. */
const MAX_PATHS = 300;
const MAX_NEW_FILES = 40;
const NEW_FILE_BYTES = 32 * 1024;
const GIT_TIMEOUT_MS = 10_000;

export interface NewFile {
	path: string;
	/** The file's text (its start, when `truncated`); absent when it was not shown (see `skipped`). */
	text?: string;
	truncated?: boolean;
	/** Why the content is not shown: binary, unreadable, refused. */
	skipped?: string;
}

/** The change as recorded at the settle: the diff text git printed and the new files. */
export type RecordedChange =
	| { base: string; diff: string; added: NewFile[] /** Changed paths not given to git. */; leftOut: number }
	| { absent: string };

export interface ChangeSource {
	root: string;
	git?: GitRunner;
	baseline: string | null | undefined;
}

export async function captureChange(
	source: ChangeSource,
	paths: readonly string[],
	signal?: AbortSignal,
): Promise<RecordedChange> {
	if (!paths.length) return { absent: "no changed paths" };
	if (!source.git || !isCommitId(source.baseline))
		return {
			absent:
				source.baseline === null
					? "the repository had no commit when the session started; read the changed paths with `read`"
					: "not a git repository here; read the changed paths with `read`",
		};
	const named = paths.slice(0, MAX_PATHS);
	const read = await readChange(source.git, source.baseline, literalPathspec(named), false, {
		signal,
		timeoutMs: GIT_TIMEOUT_MS,
	});
	if (!read.ok) return { absent: `${read.error}; use watchdog_diff or read` };
	const added = read.untracked.slice(0, MAX_NEW_FILES).map((path) => newFile(source.root, path));
	const notRead = read.untracked
		.slice(MAX_NEW_FILES)
		.map((path) => ({ path, skipped: "not read: too many new files" }));
	return {
		base: source.baseline,
		diff: read.diff,
		added: [...added, ...notRead],
		leftOut: paths.length - named.length,
	};
}

/** A change being read ahead of its review. */
export interface ChangeReadAhead {
	source: ChangeSource;
	paths: readonly string[];
	change: Promise<RecordedChange>;
	/** Stops its git calls: tied to the review's signal once the review takes it. */
	stop: AbortController;
}

export function readAhead(source: ChangeSource, paths: readonly string[]): ChangeReadAhead {
	const stop = new AbortController();
	const change = captureChange(source, paths, stop.signal);
	change.catch(() => {}); // one nobody takes must not go unhandled; the review awaits it
	return { source, paths: [...paths], change, stop };
}

/** The change of these paths: the reading ahead when it is of the same paths and place, else read now. */
export function changeFor(
	source: ChangeSource,
	paths: readonly string[],
	signal: AbortSignal,
	ahead?: ChangeReadAhead,
): Promise<RecordedChange> {
	const same =
		ahead &&
		ahead.source.root === source.root &&
		ahead.source.git === source.git &&
		ahead.source.baseline === source.baseline &&
		ahead.paths.length === paths.length &&
		ahead.paths.every((p, i) => p === paths[i]);
	if (!same) {
		ahead?.stop.abort();
		return captureChange(source, paths, signal);
	}
	if (signal.aborted) ahead.stop.abort();
	else signal.addEventListener("abort", () => ahead.stop.abort(), { once: true });
	return ahead.change;
}

function newFile(root: string, path: string): NewFile {
	const file = readFileInRoot(join(root, path), { root, maxBytes: NEW_FILE_BYTES, overLimit: "truncate" });
	if (file.state === "missing") return { path, skipped: "gone by the time it was read" };
	if (file.state === "refused") return { path, skipped: file.reason };
	if (file.text.includes("\0")) return { path, skipped: `binary, ${file.size} bytes` };
	return { path, text: file.text, ...(file.truncated ? { truncated: true } : {}) };
}
