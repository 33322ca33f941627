// Loads the prebuilt bundle's CommonJS files with a V8 code cache made after they ran. Node's own compile cache
// holds only what V8 compiles while loading a file; every function first called later (the session start, the
// first settle: most of what a start runs of ours) is compiled again at each start. A cache made at exit holds
// those too. It is kept beside Node's compile cache, and only when the host keeps one (Pi turns it on;
// NODE_DISABLE_COMPILE_CACHE turns both off). A cache file is compiled code: it is read only when this user
// owns it and no one else may write it, and a cache V8 rejects (another V8, other flags) is made anew.
// index.ts imports this file: it stays small and imports nothing of ours.
import {
	closeSync,
	constants,
	fstatSync,
	lstatSync,
	mkdirSync,
	openSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	type Stats,
	writeFileSync,
} from "node:fs";
import { channel } from "node:diagnostics_channel";
import { createRequire, getCompileCacheDir } from "node:module";
import { basename, dirname, join, resolve, sep } from "node:path";
import { constants as vmConstants, Script } from "node:vm";

/** Far above any cache of ours (the watchdog's is under 1 MB): a larger file is not one we wrote. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
/** Caches kept per folder: each build names its chunk anew, so older ones go, the least recently written first. */
const MAX_CACHES = 8;
/** Each file loaded and its cache's use, for whoever subscribes (the tests that watch what a start loads). */
export const LOAD_CHANNEL = "pi-watchdog.bundle-load";
const loads = channel(LOAD_CHANNEL);
/** Line 1 of the wrapped source is the wrapper itself, so the file's own lines keep their numbers. */
const WRAPPER = "(function (exports, require, module, __filename, __dirname) {\n";

export type CacheUse = "used" | "made" | "rejected" | "off";

export interface CompiledLoad {
	/** Where caches are kept; undefined: none (the host keeps no compile cache, or a system without owners). */
	cacheDir: string | undefined;
	/** Files under this folder that the loaded code requires by a relative path load the same way. */
	within: string;
	/** One module per file within this load, as Node's require.cache keeps one per process. */
	modules: Map<string, { exports: unknown }>;
}

/** The cache folder for this user, V8 and architecture, beside Node's compile cache; undefined when there is none. */
export function codeCacheDir(): string | undefined {
	const base = getCompileCacheDir?.();
	if (!base || typeof process.getuid !== "function") return undefined;
	return join(base, `pi-watchdog-${process.versions.v8}-${process.arch}-${process.getuid()}`);
}

/** One load of the bundle: `within` its folder, caches in `cacheDir` (codeCacheDir(), or undefined for none). */
export function newLoad(within: string, cacheDir: string | undefined): CompiledLoad {
	return { cacheDir, within: resolve(within) + sep, modules: new Map() };
}

/** `require(file)` for a CommonJS file of the bundle, compiled with its cache when there is a good one. */
export function requireCompiled(file: string, load: CompiledLoad): unknown {
	const known = load.modules.get(file);
	if (known) return known.exports;
	const fd = openSync(file, constants.O_RDONLY);
	let source: string;
	let stats: Stats;
	try {
		stats = fstatSync(fd);
		source = readFileSync(fd, "utf8");
	} finally {
		closeSync(fd);
	}
	// The key changes with any rewrite of the file (a build renames new files into place), so a cache is never
	// used for other code: V8 itself checks only the source's length.
	// Named after the file and its folder: two installs of the package each keep their own cache.
	const family = `${basename(file)}.${pathHash(dirname(file))}`;
	const stem = `${family}-${stats.ino}-${stats.size}-${stats.mtimeMs}-${stats.ctimeMs}`;
	// A cache made after a settle holds more than one made at the exit of a short command: it is preferred.
	const settledCache = load.cacheDir ? readCache(load.cacheDir, `${stem}${SETTLED}`) : undefined;
	const cached = settledCache ?? (load.cacheDir ? readCache(load.cacheDir, `${stem}.v8`) : undefined);
	const script = new Script(`${WRAPPER}${source}\n})`, {
		filename: file,
		lineOffset: -1,
		cachedData: cached,
		importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
	});
	const use: CacheUse = !load.cacheDir ? "off" : !cached ? "made" : script.cachedDataRejected ? "rejected" : "used";
	const settled = use === "used" && settledCache !== undefined;
	if (loads.hasSubscribers) loads.publish({ file, cache: use, settled });
	if (load.cacheDir && !settled) {
		const dir = load.cacheDir;
		loaded.set(file, { script, dir, family, stem, needed: use !== "used" });
		if (!exitHooked) {
			exitHooked = true;
			process.once("exit", writeCodeCaches);
		}
	}
	const module = { exports: {} as unknown };
	load.modules.set(file, module);
	const nodeRequire = createRequire(file);
	const localRequire = Object.assign(
		(id: string) => {
			const target = id.startsWith(".") ? resolve(dirname(file), id) : undefined;
			if (target?.startsWith(load.within) && target.endsWith(".cjs")) return requireCompiled(target, load);
			return nodeRequire(id);
		},
		{
			resolve: nodeRequire.resolve,
			cache: nodeRequire.cache,
			main: nodeRequire.main,
			extensions: nodeRequire.extensions,
		},
	);
	const run = script.runInThisContext() as (...args: unknown[]) => void;
	try {
		run.call(module.exports, module.exports, localRequire, module, file, dirname(file));
	} catch (error) {
		load.modules.delete(file);
		throw error;
	}
	return module.exports;
}

/** Files loaded without a settled cache: what to write at exit, and whether a cache is needed even unsettled. */
const loaded = new Map<string, { script: Script; dir: string; family: string; stem: string; needed: boolean }>();
const SETTLED = ".settled.v8";
let exitHooked = false;
let settledSeen = false;

/** A settle has run in this process: the caches written at exit are settled ones (src/util/code-cache-signal.ts). */
export function codeCacheSettled(): void {
	settledSeen = true;
}

/**
 * At exit, when the compiled code holds every function the session ran: a settled cache for each file loaded
 * without one once a settle has run, and otherwise a cache for a file that had none (or one V8 rejected). A process
 * that used a cache and ran no settle writes nothing. Never throws.
 */
function writeCodeCaches(): void {
	for (const [path, { script, dir, family, stem, needed }] of loaded) {
		loaded.delete(path);
		if (!settledSeen && !needed) continue;
		const name = `${stem}${settledSeen ? SETTLED : ".v8"}`;
		try {
			mkdirSync(dir, { recursive: true, mode: 0o700 });
			if (!ownedByUs(lstatSync(dir), "directory")) continue;
			const temp = join(dir, `.${process.pid}-${Date.now()}-${name}`);
			try {
				writeFileSync(temp, script.createCachedData(), { mode: 0o600, flag: "wx" });
				renameSync(temp, join(dir, name));
			} finally {
				rmSync(temp, { force: true });
			}
			evict(dir, name, family);
		} catch {
			// a cache that cannot be written costs the next start its compile time, nothing more
		}
	}
}

/** A short, stable name for a folder (FNV-1a): it tells caches of two installs apart, nothing more. */
function pathHash(path: string): string {
	let hash = 0x811c9dc5;
	for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
	return (hash >>> 0).toString(36);
}

/** A cache of ours by its name (`<file>.<folder>-<inode>-<size>-<mtime>-<ctime>[.settled].v8`), and a write's. */
const CACHE_NAME = /^[\w.-]+\.cjs\.[0-9a-z]+-\d+-\d+-[\d.]+-[\d.]+(?:\.settled)?\.v8$/;
const WRITE_NAME = /^\.\d+-\d+-[\w.-]+\.cjs\.[0-9a-z]+-\d+-\d+-[\d.]+-[\d.]+(?:\.settled)?\.v8$/;
const STALE_WRITE_MS = 3_600_000;

/**
 * Removes the same file's earlier caches, the oldest past MAX_CACHES, and writes left unfinished an hour ago. Only
 * files of ours by name and owner go: whatever else the folder holds is not ours to delete.
 */
function evict(dir: string, kept: string, file: string): void {
	const ours = readdirSync(dir)
		.filter((entry) => entry !== kept && (CACHE_NAME.test(entry) || WRITE_NAME.test(entry)))
		.map((entry) => ({ entry, stats: lstatSync(join(dir, entry)) }))
		.filter(({ stats }) => stats.isFile() && stats.uid === process.getuid?.());
	const caches = ours.filter(({ entry }) => !entry.startsWith(".")).sort((a, b) => b.stats.mtimeMs - a.stats.mtimeMs);
	const gone = [
		...caches.filter(({ entry }) => entry.startsWith(`${file}-`)),
		...caches.filter(({ entry }) => !entry.startsWith(`${file}-`)).slice(MAX_CACHES - 1),
		...ours.filter(({ entry, stats }) => entry.startsWith(".") && Date.now() - stats.mtimeMs > STALE_WRITE_MS),
	];
	for (const { entry } of gone) rmSync(join(dir, entry), { force: true });
}

/** The cache file's bytes when it is one this user wrote: a regular file, owned by us, writable by no one else. */
function readCache(dir: string, name: string): Buffer | undefined {
	try {
		if (!ownedByUs(lstatSync(dir), "directory")) return undefined;
		const fd = openSync(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
		try {
			const stats = fstatSync(fd);
			if (!ownedByUs(stats, "file") || stats.nlink !== 1 || stats.size > MAX_CACHE_BYTES) return undefined;
			return readFileSync(fd);
		} finally {
			closeSync(fd);
		}
	} catch {
		return undefined; // none yet, or unreadable: compile as Node would
	}
}

function ownedByUs(stats: Stats, kind: "file" | "directory"): boolean {
	const right = kind === "file" ? stats.isFile() : stats.isDirectory();
	return right && stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0;
}
