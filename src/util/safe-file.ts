// Reading a file the watchdog opens on its own initiative (settings, WATCHDOG.md, later agent
// and permission files) when someone else may control it. Only a regular file is read; a
// symbolic link (at the end or anywhere on the way) is followed only while the real path stays
// inside `root`; a FIFO, device or socket is refused before it is opened (by a fresh lstat, or
// the one a listing just took), and the open is non-blocking in case one is swapped in; the
// descriptor is checked to be the file the contained path names (a swap between check and open
// is caught); at most `maxBytes` are read.
// Synchronous on purpose: settings are consulted on every tool event, and a bounded read of a
// regular file cannot hang the way a FIFO or `/dev/zero` would.
import { createHash } from "node:crypto";
import {
	closeSync,
	constants,
	fstatSync,
	lstatSync,
	openSync,
	readlinkSync,
	readSync,
	realpathSync,
	type Stats,
	statSync,
} from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";

export type SafeRead =
	| { state: "missing" }
	| {
			state: "ok";
			text: string;
			size: number;
			truncated: boolean /** SHA-256 of the bytes read (hex; "" when not asked for). */;
			sha256: string;
			/** "tail" with `headBytes`: the file's start, when the tail does not hold it. */
			head?: string;
	  }
	| { state: "refused"; reason: string };

export interface SafeReadOptions {
	/** Links are followed only while the real path stays inside this folder. */
	root: string;
	/** Bytes read at most. */
	maxBytes: number;
	/** A larger file: "refuse" it (a cut JSON file is useless), read its start ("truncate") or its end ("tail"). */
	overLimit: "refuse" | "truncate" | "tail";
	/** With "tail": also read this many bytes from the start, from the same open file. */
	headBytes?: number;
	/** Hash what was read (default true). */
	hash?: boolean;
	/** The root's real path, when the caller resolved it once for many reads (realRoot()). */
	realRoot?: string;
	/**
	 * What a listing of the root just found at `path`: its lstat, taken by a walk that reached it
	 * without following a link out of the root (scan's walk). A regular file there is opened by
	 * that path at once: its kind was decided before the open, a link swapped in at its end fails
	 * the open (and then gets the full check), and the descriptor is still checked to be a regular
	 * file, the one listed (else one inside the root). Saves resolving and stat-ing each file of a
	 * long listing again, and asking the kernel where each descriptor leads.
	 */
	listed?: Stats;
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

export function readFileInRoot(path: string, options: SafeReadOptions): SafeRead {
	const root = options.realRoot ?? realRoot(options.root);
	const listed = options.listed?.isFile() ? openListed(path) : undefined;
	const opened = listed ?? openLocated(path, options.root, root);
	if (typeof opened !== "number") return opened;
	return readOpen(opened, path, root, options, typeof listed === "number" ? options.listed : undefined);
}

/** Opens a path a listing saw as a regular file; undefined when a link is there now (the full check decides). */
function openListed(path: string): number | Exclude<SafeRead, { state: "ok" }> | undefined {
	try {
		return openSync(path, OPEN_FLAGS);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return { state: "missing" };
		if (code === "ELOOP") return undefined;
		return refused(`${path} cannot be read: ${(error as Error).message}`);
	}
}

function openLocated(path: string, root: string, real: string): number | Exclude<SafeRead, { state: "ok" }> {
	const located = locate(path, root, real);
	if (located.state !== "found") return located;
	try {
		return openSync(located.real, OPEN_FLAGS);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return { state: "missing" };
		if (code === "ELOOP") return refused(`${path} was replaced by a symbolic link while it was being opened`);
		return refused(`${path} cannot be read: ${(error as Error).message}`);
	}
}

/** `listed`: the listing's stat of the file opened by its path at once (openListed). */
function readOpen(fd: number, path: string, root: string, options: SafeReadOptions, listed?: Stats): SafeRead {
	try {
		const opened = fstatSync(fd);
		if (!opened.isFile()) return refused(notRegular(path, opened));
		if (!(listed && sameFile(listed, opened)) && !holdsFileInside(fd, opened, path, options.root, root)) {
			return refused(`${path} changed while it was being opened (a symbolic link swapped in?); it was not read`);
		}
		if (opened.size > options.maxBytes && options.overLimit === "refuse") {
			return refused(`${path} is ${opened.size} bytes, over the ${options.maxBytes}-byte limit for this file`);
		}
		// A log's end is what a reader of its latest state wants; the start of the file is skipped.
		const from = options.overLimit === "tail" ? Math.max(0, opened.size - options.maxBytes) : 0;
		// The tail is the end as of the fstat: what is appended meanwhile is the next reader's.
		const { bytes, truncated } =
			options.overLimit === "tail" ? readExactly(fd, opened.size - from, from) : readBounded(fd, options.maxBytes);
		// Decoded and hashed before the next read: a tail's bytes live in a reused buffer.
		const text = stripBom(bytes.toString("utf8"));
		const sha256 = options.hash === false ? "" : createHash("sha256").update(bytes).digest("hex");
		const head =
			from > 0 && options.headBytes ? readExactly(fd, Math.min(options.headBytes, opened.size), 0) : undefined;
		return {
			state: "ok",
			text,
			size: opened.size,
			truncated: truncated || from > 0,
			sha256,
			...(head ? { head: stripBom(head.bytes.toString("utf8")) } : {}),
		};
	} catch (error) {
		return refused(`${path} cannot be read: ${(error as Error).message}`);
	} finally {
		closeSync(fd);
	}
}

/**
 * Changes whenever the file (or where its links lead) changes; never opens it. "missing" when
 * there is nothing there.
 */
export function fileToken(path: string): string {
	try {
		// Usually missing (a project without settings): no exception for the common case.
		const link = lstatSync(path, { throwIfNoEntry: false });
		if (!link) return "missing";
		const target = link.isSymbolicLink() ? statSync(path) : link;
		return [link.ino, link.mtimeMs, target.ino, target.size, target.mtimeMs, kindOf(target)].join(":");
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		return code === "ENOENT" || code === "ENOTDIR" ? "missing" : `stat-error:${code}`;
	}
}

/**
 * The folder a user's own file may link into: the home folder when the agent folder lies in
 * it (dotfile managers keep the real files there), else the agent folder itself.
 */
export function userRoot(agentDir: string): string {
	const home = homedir();
	return home && isInside(resolve(home), resolve(agentDir)) ? home : agentDir;
}

export function stripBom(text: string): string {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Whether the open descriptor holds a file inside the root. Where the kernel names the file a
 * descriptor holds (/proc/self/fd on Linux) that decides, exactly. Elsewhere the name's real
 * path must still lead inside to the same (dev, ino); a folder on the way swapped for a link
 * and back between the steps is the one gap Node leaves open there.
 */
function holdsFileInside(fd: number, opened: Stats, path: string, root: string, real: string): boolean {
	let held: string | undefined;
	try {
		held = readlinkSync(`/proc/self/fd/${fd}`);
	} catch {
		held = undefined;
	}
	// Both are the kernel's own names (no `..`, no links): a prefix says it, without path.relative.
	if (held !== undefined && isAbsolute(held)) return realInside(real, held.replace(/ \(deleted\)$/, ""));
	const again = locate(path, root, real);
	return again.state === "found" && again.stats.dev === opened.dev && again.stats.ino === opened.ino;
}

/**
 * Whether the descriptor holds the very file the listing found inside the root (the walk stat-ed
 * it there without following a link out): same device, inode and birth time. Then where its
 * path leads now does not matter (it is a file that was inside); any other file (swapped in
 * since, even through a folder on the way) gets the full check. The birth time, where the file
 * system records one, tells a new file from one that reuses the inode number.
 */
function sameFile(listed: Stats, opened: Stats): boolean {
	return listed.ino === opened.ino && listed.dev === opened.dev && listed.birthtimeMs === opened.birthtimeMs;
}

/** A root folder's real path (its links resolved), or the path itself when it cannot be resolved. */
export function realRoot(root: string): string {
	try {
		return realpathSync.native(root);
	} catch {
		return resolve(root);
	}
}

type Located = { state: "found"; real: string; stats: Stats } | Exclude<SafeRead, { state: "ok" }>;

function locate(path: string, root: string, realRoot: string): Located {
	let real: string;
	try {
		// The kernel's realpath: one call, where the JS one makes a syscall per path component.
		real = realpathSync.native(path);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return { state: "missing" }; // a broken link too
		return refused(`${path} cannot be resolved: ${(error as Error).message}`);
	}
	if (!isInside(realRoot, real))
		return refused(`${path} leads outside ${root} (to ${real}) through a symbolic link; only files inside it are read`);
	let stats: Stats;
	try {
		stats = lstatSync(real);
	} catch (error) {
		return refused(`${path} cannot be read: ${(error as Error).message}`);
	}
	// Decided before opening: opening some devices has effects of its own.
	if (!stats.isFile()) return refused(notRegular(path, stats));
	return { state: "found", real, stats };
}

let scratch = Buffer.alloc(0);

/** `length` bytes from `from` (fewer when the file shrank), in a buffer the next call reuses. */
function readExactly(fd: number, length: number, from: number): { bytes: Buffer; truncated: boolean } {
	// Reads of a few hundred KiB (tails) share one buffer instead of leaving one per file to the collector.
	if (scratch.length < length && length <= 1 << 20) scratch = Buffer.allocUnsafe(length);
	const buffer = length <= scratch.length ? scratch : Buffer.allocUnsafe(length);
	let total = 0;
	while (total < length) {
		const n = readSync(fd, buffer, total, length - total, from + total);
		if (n === 0) break;
		total += n;
	}
	return { bytes: buffer.subarray(0, total), truncated: false };
}

function readBounded(fd: number, maxBytes: number, from = 0): { bytes: Buffer; truncated: boolean } {
	// One read of at most maxBytes + 1 (the extra byte says whether there was more).
	if (maxBytes <= 1 << 20) {
		const buffer = Buffer.allocUnsafe(maxBytes + 1);
		let total = 0;
		for (;;) {
			const n = readSync(fd, buffer, total, maxBytes + 1 - total, from + total);
			if (n === 0) break;
			total += n;
			if (total > maxBytes) break;
		}
		return total > maxBytes
			? { bytes: buffer.subarray(0, maxBytes), truncated: true }
			: { bytes: buffer.subarray(0, total), truncated: false };
	}
	const buffer = Buffer.allocUnsafe(Math.min(maxBytes, 1 << 16) + 1);
	const chunks: Buffer[] = [];
	let total = 0;
	for (;;) {
		const want = Math.min(buffer.length, maxBytes + 1 - total);
		if (want <= 0) break;
		const n = readSync(fd, buffer, 0, want, from + total);
		if (n === 0) break;
		chunks.push(Buffer.from(buffer.subarray(0, n)));
		total += n;
	}
	const all = Buffer.concat(chunks, total);
	return total > maxBytes ? { bytes: all.subarray(0, maxBytes), truncated: true } : { bytes: all, truncated: false };
}

/** Whether `path` is `root` or below it (both already resolved the same way). */
export function isInside(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel === "" || !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

/** isInside for two real paths as the kernel names them. */
function realInside(root: string, path: string): boolean {
	return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function notRegular(path: string, stats: Stats): string {
	return `${path} is ${kindOf(stats)}, not a regular file, so it is not read`;
}

function kindOf(stats: Stats): string {
	if (stats.isDirectory()) return "a directory";
	if (stats.isFIFO()) return "a FIFO";
	if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
	if (stats.isSocket()) return "a socket";
	if (stats.isSymbolicLink()) return "a symbolic link";
	return stats.isFile() ? "a file" : "not a file";
}

function refused(reason: string): { state: "refused"; reason: string } {
	return { state: "refused", reason };
}
