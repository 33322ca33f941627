// Content hashes for the change gate: bounded for huge files, never opening a FIFO or device,
// never following a link swapped in between the stat and the open. Small files are hashed
// synchronously: four thread-pool round trips cost more than reading a few kilobytes.
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";

const FULL_HASH_LIMIT = 8 * 1024 * 1024;
const EDGE_BYTES = 1024 * 1024;
/** Files up to this size are read on the spot rather than through the thread pool. */
const SYNC_HASH_LIMIT = 256 * 1024;
/** Non-blocking and without following a link: a path swapped since the lstat must not hang or lead elsewhere. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

export interface PathMark {
	size: number;
	mtimeMs: number;
	ino: number;
	hash: string;
}

/**
 * What a path holds now: a hash of a file's content, a link's target, or a folder's or special file's kind;
 * null when missing.
 */
export function hashPath(abs: string): PathMark | null | Promise<PathMark | null> {
	let st: Stats;
	try {
		st = lstatSync(abs);
	} catch {
		return null;
	}
	const hash = hashOf(abs, st);
	const mark = (h: string) => ({ size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, hash: h });
	return typeof hash === "string" ? mark(hash) : hash.then(mark);
}

/** The content hash of what `st` describes; a string at once for anything but a file over 256 KiB. */
export function hashOf(abs: string, st: Stats): string | Promise<string> {
	if (st.isSymbolicLink()) return `link:${safeReadlink(abs)}`;
	if (st.isDirectory()) return `dir:${st.mtimeMs}`;
	// A FIFO or device is never opened: a blocking open would hold a thread (and the settle) forever.
	if (!st.isFile()) return `special:${st.mode}:${st.rdev}`;
	return st.size <= SYNC_HASH_LIMIT ? hashSmallFile(abs, st.size) : hashFile(abs, st.size);
}

function hashSmallFile(path: string, size: number): string {
	let fd: number | undefined;
	try {
		fd = openSync(path, OPEN_FLAGS);
		if (!fstatSync(fd).isFile()) return `special:${size}`;
		// Read to the end, not to the size seen: the file may have changed since the lstat.
		const hash = createHash("sha1");
		const buf = Buffer.allocUnsafe(Math.min(size, SYNC_HASH_LIMIT) + 4096);
		let total = 0;
		for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) {
			hash.update(buf.subarray(0, n));
			total += n;
			if (total > FULL_HASH_LIMIT) return `grown:${size}:${total}`; // growing under us: matches nothing earlier
		}
		return hash.digest("hex");
	} catch (error) {
		return `unreadable:${(error as NodeJS.ErrnoException).code ?? "error"}:${size}`;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/** Content hash; files over 8 MiB are hashed by size, first and last MiB (bounded cost). */
async function hashFile(path: string, size: number): Promise<string> {
	const hash = createHash("sha1");
	let handle: Awaited<ReturnType<typeof open>> | undefined;
	try {
		handle = await open(path, OPEN_FLAGS);
		if (!(await handle.stat()).isFile()) return `special:${size}`;
		if (size <= FULL_HASH_LIMIT) {
			hash.update(await handle.readFile());
		} else {
			const buf = Buffer.alloc(EDGE_BYTES);
			hash.update(`size:${size}`);
			const head = await handle.read(buf, 0, EDGE_BYTES, 0);
			hash.update(buf.subarray(0, head.bytesRead));
			const tail = await handle.read(buf, 0, EDGE_BYTES, size - EDGE_BYTES);
			hash.update(buf.subarray(0, tail.bytesRead));
		}
		return hash.digest("hex");
	} catch (error) {
		return `unreadable:${(error as NodeJS.ErrnoException).code ?? "error"}:${size}`;
	} finally {
		await handle?.close();
	}
}

function safeReadlink(path: string): string {
	try {
		return readlinkSync(path);
	} catch {
		return "?";
	}
}
