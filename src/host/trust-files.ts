// The file side of trust: what a project file holds now (absent, a content hash, unreadable),
// read the way its consumer reads it (the same limits, so the hashes compare), and the
// snapshot of a folder's trust-relevant files. A folder nobody decided to trust is only
// looked at (lstat), never opened.
import { lstatSync } from "node:fs";
import { readFileInRoot, type SafeRead } from "../util/index.ts";
import type { FileState, TrustSnapshot } from "./trust-snapshot.ts";

/** How one consumer reads a file: links stay inside `root`; at most `maxBytes` are read. */
export interface TrustedRead {
	path: string;
	root: string;
	maxBytes: number;
	overLimit: "refuse" | "truncate";
}

export function fileState(read: TrustedRead): FileState {
	return readState(readFileInRoot(read.path, { root: read.root, maxBytes: read.maxBytes, overLimit: read.overLimit }));
}

/** A guarded read as a file state. */
export function readState(got: SafeRead): FileState {
	if (got.state === "missing") return { kind: "absent" };
	if (got.state === "refused") return { kind: "unreadable", reason: got.reason };
	return { kind: "file", hash: got.sha256 };
}

/** What a consumer asks before it opens a project file, and about what it read. */
export interface FileTrust {
	mayOpen(path: string): boolean;
	allows(path: string, now: FileState): boolean;
}

/** Whether something is at `path` (a link counts), without opening it. */
export function present(path: string): boolean {
	try {
		return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
	} catch {
		return false;
	}
}

export function takeSnapshot(
	root: string,
	decision: { decided: boolean; why: string },
	reads: TrustedRead[],
	now = Date.now(),
): TrustSnapshot {
	const files: Record<string, FileState> = {};
	for (const read of reads) {
		if (decision.decided) files[read.path] = fileState(read);
		else if (present(read.path)) files[read.path] = { kind: "file", hash: "(not read: no trust decision)" };
	}
	return { root, decided: decision.decided, why: decision.why, files, takenAt: now };
}
