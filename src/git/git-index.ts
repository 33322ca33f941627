// Which of some paths git tracks, read from the index file itself (versions 2 to 4) without
// starting git. Used only for a path the ignore rules exclude (a tracked file is never ignored),
// which is rare, so the index is scanned on demand rather than kept in memory. An index this
// reader cannot fully answer for (split index, sparse index, an unknown version, a file past
// the size bound, a torn read) gives undefined, and the caller asks git.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

const INDEX_BYTES = 512 * 1024 * 1024;
const DIR_MODE = 0o040000;

/** The subset of `wanted` (paths relative to the work tree) that the index lists, or undefined when it cannot tell. */
export function trackedAmong(
	indexPath: string,
	wanted: ReadonlySet<string>,
	hashBytes: number,
): Set<string> | undefined {
	const buf = readIndex(indexPath);
	if (buf === null) return new Set(); // no index yet: nothing is tracked
	if (!buf || buf.length < 12 || buf.toString("latin1", 0, 4) !== "DIRC") return undefined;
	const version = buf.readUInt32BE(4);
	if (version < 2 || version > 4) return undefined;
	const count = buf.readUInt32BE(8);
	const found = new Set<string>();
	let partial = false; // sparse-directory entries stand for many paths
	let off = 12;
	let prev = Buffer.alloc(0);
	try {
		for (let i = 0; i < count; i++) {
			const mode = buf.readUInt32BE(off + 24);
			if ((mode & 0o170000) === DIR_MODE) partial = true;
			const flagsAt = off + 40 + hashBytes;
			const flags = buf.readUInt16BE(flagsAt);
			const nameAt = flagsAt + 2 + (version >= 3 && flags & 0x4000 ? 2 : 0);
			let path: string;
			if (version === 4) {
				// The name is the previous one minus N trailing bytes, plus a NUL-terminated suffix.
				let p = nameAt;
				let c = buf[p++];
				let strip = c & 127;
				while (c & 128) {
					c = buf[p++];
					strip = ((strip + 1) << 7) + (c & 127);
				}
				const end = buf.indexOf(0, p);
				if (end < 0 || strip > prev.length) return undefined;
				prev = Buffer.concat([prev.subarray(0, prev.length - strip), buf.subarray(p, end)]);
				path = prev.toString("utf8");
				off = end + 1;
			} else {
				const end = buf.indexOf(0, nameAt);
				if (end < 0) return undefined;
				path = buf.toString("utf8", nameAt, end);
				off += (nameAt - off + (end - nameAt) + 8) & ~7;
			}
			if (wanted.has(path)) found.add(path);
		}
		// Extensions: a split index keeps most entries in a shared file this reader does not open.
		while (off + 8 <= buf.length - hashBytes) {
			const signature = buf.toString("latin1", off, off + 4);
			if (signature === "link" || signature === "sdir") partial = true;
			off += 8 + buf.readUInt32BE(off + 4);
		}
	} catch {
		return undefined; // a read past the end: a torn or foreign file
	}
	if (partial && found.size < wanted.size) return undefined;
	return found;
}

/** The index bytes; null when there is no index; undefined when it cannot be read within bounds. */
function readIndex(path: string): Buffer | null | undefined {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
	}
	try {
		const st = fstatSync(fd);
		if (!st.isFile() || st.size > INDEX_BYTES) return undefined;
		const buf = Buffer.allocUnsafe(st.size);
		let at = 0;
		while (at < st.size) {
			const n = readSync(fd, buf, at, st.size - at, at);
			if (n === 0) return undefined;
			at += n;
		}
		return buf;
	} catch {
		return undefined;
	} finally {
		closeSync(fd);
	}
}
