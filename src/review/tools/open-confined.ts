// Opens a file for the reviewer so that what is read is inside the repository. Checking a path
// and then opening it races with anything that swaps the path for a symlink in between (the
// agent, or a process it started), so containment is checked on the opened descriptor:
//  1. open without following a final symlink, non-blocking (a FIFO must not wait for a writer);
//  2. where the kernel names the descriptor's file (/proc/self/fd on Linux), that path must lie
//     inside the real root and outside .git. It is the file we hold, so this is exact;
//  3. elsewhere: fstat gives the descriptor's (dev, ino); the name's real path must lie inside,
//     and lstat of it must be the same (dev, ino). A swap before the open leaves another file
//     there and is refused; a swap after it cannot change what the descriptor holds. One gap
//     remains that Node gives no way to close (no openat, no F_GETPATH): a folder on the way
//     swapped for a link at the open, back for the realpath, and again for the lstat.
// Either way a refusal is retried a few times, so a benign replacement (an editor saving) reads.
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readlink, realpath } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { insideRealRoot } from "./confine.ts";

export type ConfinedOpen =
	| { ok: true; handle: FileHandle; info: Stats }
	| { ok: false; reason: "missing" | "directory" | "outside" | "unreadable"; message?: string };

const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);
/** A benign replacement (an editor's atomic save) settles within a retry or two. */
const ATTEMPTS = 3;

/** Opens `path` (normally a real path from confinePath or the walk) if it is inside `realRoot`. */
export async function openConfined(realRoot: string, path: string): Promise<ConfinedOpen> {
	let target = path;
	for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
		let handle: FileHandle;
		try {
			handle = await open(target, FLAGS);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, reason: "missing" };
			if (code === "EISDIR") return { ok: false, reason: "directory" };
			if (code !== "ELOOP" && code !== "EMLINK")
				return { ok: false, reason: "unreadable", message: (error as Error).message };
			// The name became a symlink since it was resolved: follow it only if it stays inside.
			const real = await realpath(path).catch(() => null);
			if (real === null) return { ok: false, reason: "missing" };
			if (!insideRealRoot(realRoot, real)) return { ok: false, reason: "outside" };
			target = real;
			continue;
		}
		try {
			const info = await handle.stat();
			if (await holdsFileInside(handle, info, realRoot, path)) return { ok: true, handle, info };
		} catch {
			// The name vanished or changed while being checked: try again from the start.
		}
		await handle.close().catch(() => {});
		target = path;
	}
	return { ok: false, reason: "outside" };
}

/** How the descriptor is checked; tests turn the kernel path off to exercise the portable check. */
export const descriptorCheck = { kernelPath: process.platform === "linux" };

async function holdsFileInside(handle: FileHandle, info: Stats, realRoot: string, path: string): Promise<boolean> {
	const kernelPath = descriptorCheck.kernelPath ? await descriptorPath(handle.fd) : null;
	if (kernelPath !== null)
		return isAbsolute(kernelPath) && insideRealRoot(realRoot, kernelPath.replace(/ \(deleted\)$/, ""));
	const real = await realpath(path);
	if (!insideRealRoot(realRoot, real)) return false;
	const named = await lstat(real);
	return named.dev === info.dev && named.ino === info.ino;
}

/** The path the kernel gives for an open descriptor, or null where it cannot tell us. */
async function descriptorPath(fd: number): Promise<string | null> {
	try {
		// A file unlinked since it was opened reads as "<path> (deleted)": judged by where it was.
		return await readlink(`/proc/self/fd/${fd}`);
	} catch {
		descriptorCheck.kernelPath = false; // no /proc here: the portable check from now on
		return null;
	}
}
