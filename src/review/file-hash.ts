// Content hashes for the change gate: bounded for huge files, never opening a FIFO or device,
// never following a link swapped in between the stat and the open.
import { createHash } from "node:crypto";
import { constants, lstatSync, readlinkSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";

const FULL_HASH_LIMIT = 8 * 1024 * 1024;
const EDGE_BYTES = 1024 * 1024;

/** What a path holds now: a hash of a file's content, a link's target, or a folder's or special file's kind; null when missing. */
export async function hashPath(abs: string): Promise<{ size: number; mtimeMs: number; ino: number; hash: string } | null> {
	let st: Stats;
	try {
		st = lstatSync(abs);
	} catch {
		return null;
	}
	return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, hash: await hashOf(abs, st) };
}

export async function hashOf(abs: string, st: Stats): Promise<string> {
	if (st.isSymbolicLink()) return `link:${safeReadlink(abs)}`;
	if (st.isDirectory()) return `dir:${st.mtimeMs}`;
	// A FIFO or device is never opened: a blocking open would hold a thread (and the settle) forever.
	if (!st.isFile()) return `special:${st.mode}:${st.rdev}`;
	return hashFile(abs, st.size);
}

/** Content hash; files over 8 MiB are hashed by size, first and last MiB (bounded cost). */
async function hashFile(path: string, size: number): Promise<string> {
	const hash = createHash("sha1");
	let handle: Awaited<ReturnType<typeof open>> | undefined;
	try {
		// Non-blocking and without following a link: a path swapped since the lstat must not hang or lead elsewhere.
		handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
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
