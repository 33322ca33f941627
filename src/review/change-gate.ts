// The change gate: did this run change the repository? A run that only reads costs nothing;
// a run that may have written costs one `git status` at its end, plus a stat of each path
// that was dirty before and hashing of only the dirty files whose stat changed. The start
// state is the previous run's end state, checked by stat, so steady state needs no git
// process at the start.
import { createHash } from "node:crypto";
import { constants, lstatSync, readlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { changedPaths, type DirtyMarks, type FileMark, sameStat } from "./change-set.ts";
import { createGitRunner, type GitRunner } from "./git.ts";
import { findRepo, readHead, type RepoLocation } from "./repo.ts";
import { parsePorcelainV2 } from "./status-parse.ts";

/** Tools known not to change files; anything else might. */
export const READ_ONLY_TOOLS = new Set(["read", "grep", "find", "ls"]);

const FULL_HASH_LIMIT = 8 * 1024 * 1024;
const EDGE_BYTES = 1024 * 1024;
/** Slack for coarse file-system clocks when deciding a file changed before the run. */
const MTIME_MARGIN_MS = 1500;

export interface GateVerdict {
	changed: boolean;
	paths: string[];
	/** "git": compared repository states; "tools": outside git, from successful edits/writes; "none": no mutating call. */
	via: "git" | "tools" | "none";
	/** HEAD at the end of the run (git only). */
	head?: string | null;
	error?: string;
}

interface RepoState {
	head: string | null;
	dirty: DirtyMarks;
}

interface RunState {
	startedAt: number;
	/** Whether a tool that might write has been called. */
	mutated: boolean;
	start?: Promise<RepoState | { error: string }>;
	evidence: Set<string>;
}

export interface GateOptions {
	cwd: string;
	/** Paths (relative to the work tree) that never count as changes. */
	ignore: (path: string) => boolean;
	timeoutMs?: number;
}

export class ChangeGate {
	readonly repo: RepoLocation | undefined;
	readonly git: GitRunner | undefined;
	/** HEAD when the session started: the base of `watchdog_diff`. */
	readonly baseline: string | null | undefined;
	private readonly options: GateOptions;
	private cache = new Map<string, FileMark>();
	private last?: RepoState;
	private run?: RunState;

	constructor(options: GateOptions) {
		this.options = options;
		this.repo = findRepo(options.cwd);
		this.git = this.repo ? createGitRunner(this.repo.root) : undefined;
		this.baseline = this.repo ? readHead(this.repo) : undefined;
	}

	/** Called before each tool runs; the first mutating call of a run records the start state. */
	async beforeTool(toolName: string): Promise<void> {
		if (READ_ONLY_TOOLS.has(toolName)) return;
		const run = this.currentRun();
		run.mutated = true;
		if (!run.start && this.repo) run.start = this.captureStart();
		await run.start;
	}

	/** Called after each tool; outside git, successful edits and writes are the evidence. */
	afterTool(toolName: string, input: unknown, isError: boolean): void {
		if (READ_ONLY_TOOLS.has(toolName)) return;
		const run = this.currentRun();
		const path = (input as { path?: unknown } | undefined)?.path;
		if (isError || (toolName !== "edit" && toolName !== "write") || typeof path !== "string") return;
		const rel = (isAbsolute(path) ? relative(this.options.cwd, path) : path).split(sep).join("/");
		if (!rel.startsWith("../")) run.evidence.add(rel.replace(/^\.\//, ""));
	}

	/** At the settle boundary: what this run changed. Ends the run. */
	async finish(signal?: AbortSignal): Promise<GateVerdict> {
		const run = this.run;
		this.run = undefined;
		if (!run?.mutated) return { changed: false, paths: [], via: "none" };
		if (!this.repo || !this.git || !run.start) {
			const paths = [...run.evidence].filter((p) => !this.options.ignore(p)).sort();
			return { changed: paths.length > 0, paths, via: "tools" };
		}
		const start = await run.start;
		if ("error" in start) return { changed: false, paths: [], via: "git", error: start.error };
		const end = await this.status(signal);
		if ("error" in end) return { changed: false, paths: [], via: "git", error: end.error };
		const paths = new Set(changedPaths(start.dirty, end.dirty, run.startedAt - MTIME_MARGIN_MS));
		if (start.head !== end.head && end.head) {
			const range = start.head ? ["diff", "--name-only", "-z", start.head, end.head] : ["ls-tree", "-r", "-z", "--name-only", end.head];
			const committed = await this.git.run(range, { signal, timeoutMs: this.options.timeoutMs });
			for (const p of committed.stdout.split("\0")) if (p && !this.options.ignore(p)) paths.add(p);
		}
		const list = [...paths].sort();
		return { changed: list.length > 0, paths: list, via: "git", head: end.head };
	}

	/** Paths the current run's edits and writes touched so far (for a review in mid-run). */
	pendingPaths(): string[] {
		return [...(this.run?.evidence ?? [])].sort();
	}

	/** Forget the current run without a verdict (e.g. the session is shutting down). */
	abandonRun(): void {
		this.run = undefined;
	}

	private currentRun(): RunState {
		this.run ??= { startedAt: Date.now(), mutated: false, evidence: new Set() };
		return this.run;
	}

	private async captureStart(): Promise<RepoState | { error: string }> {
		const repo = this.repo as RepoLocation;
		const last = this.last;
		const head = readHead(repo);
		// Steady state: the previous end state still holds if HEAD did not move; re-stat its dirty paths.
		if (last && head !== undefined && head === last.head) {
			const dirty: DirtyMarks = new Map();
			for (const path of last.dirty.keys()) dirty.set(path, await this.mark(path));
			return { head, dirty };
		}
		return this.status();
	}

	private async status(signal?: AbortSignal): Promise<RepoState | { error: string }> {
		const git = this.git as GitRunner;
		const result = await git.run(["--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames"], {
			signal,
			timeoutMs: this.options.timeoutMs,
		});
		if (!result.ok) return { error: `git status failed: ${result.error}` };
		const parsed = parsePorcelainV2(result.stdout);
		const dirty: DirtyMarks = new Map();
		for (const path of parsed.paths) {
			if (this.options.ignore(path)) continue;
			dirty.set(path, await this.mark(path));
		}
		// The cache only needs what is dirty now: memory follows the dirty set, not history.
		for (const path of this.cache.keys()) if (!dirty.has(path)) this.cache.delete(path);
		const state = { head: parsed.head, dirty };
		this.last = state;
		return state;
	}

	/** Stat (and, when the stat changed since the last look, hash) one path. */
	private async mark(path: string): Promise<FileMark | null> {
		const abs = join((this.repo as RepoLocation).root, path);
		let st: ReturnType<typeof lstatSync>;
		try {
			st = lstatSync(abs);
		} catch {
			this.cache.delete(path);
			return null;
		}
		const probe = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, hash: "" };
		const cached = this.cache.get(path);
		if (cached && sameStat(cached, probe)) return cached;
		let hash: string;
		if (st.isSymbolicLink()) hash = `link:${safeReadlink(abs)}`;
		else if (st.isDirectory()) hash = `dir:${st.mtimeMs}`;
		// A FIFO or device is never opened: a blocking open would hold a thread (and the settle) forever.
		else if (!st.isFile()) hash = `special:${st.mode}:${st.rdev}`;
		else hash = await hashFile(abs, st.size);
		const mark = { ...probe, hash };
		this.cache.set(path, mark);
		return mark;
	}
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
