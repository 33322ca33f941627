// The change gate: did this run change the repository? A run that only reads costs nothing.
// A run whose every mutating call was a built-in `edit` or `write` costs no git process either:
// the files those calls touched are hashed before their first touch and at the end, and only
// a changed one whose ignored-ness the in-process rules cannot settle is put to git. Any other
// mutating call costs one `git status` at the run's end, plus a stat of each path that was
// dirty before and hashing of only the dirty files whose stat changed. The start state is the
// previous run's end state, checked by stat, so steady state needs no git process at the start.
import { lstatSync, type Stats } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { changedPaths, type DirtyMarks, type FileMark, sameContent, sameStat } from "./change-set.ts";
import {
	createGitRunner,
	findRepo,
	type GitRunner,
	hashOf,
	hashPath,
	IgnoreRules,
	parsePorcelainV2,
	readHead,
	type RepoLocation,
} from "../git/index.ts";
import { placeTouched, realRootOf } from "./touched-path.ts";

/** Tools known not to change files; anything else might. */
export const READ_ONLY_TOOLS = new Set(["read", "grep", "find", "ls"]);
/** Built-in tools that write exactly the file named by their `path`. */
const FILE_TOOLS = new Set(["edit", "write"]);

/** Slack for coarse file-system clocks when deciding a file changed before the run. */
const MTIME_MARGIN_MS = 1500;

export interface GateVerdict {
	changed: boolean;
	paths: string[];
	/**
	 * "git": compared repository states; "files": only edits and writes, their files compared
	 * before and after; "tools": outside git, from successful edits/writes; "none": no mutating call.
	 */
	via: "git" | "files" | "tools" | "none";
	/** HEAD at the end of the run (git and files only). */
	head?: string | null;
	error?: string;
}

interface RepoState {
	head: string | null;
	dirty: DirtyMarks;
	/**
	 * Paths known not to be ignored whose mark is their real content but which may be clean:
	 * a run of edits alone learns content, not whether it matches the index.
	 */
	uncertain?: Set<string>;
}

interface RunState {
	startedAt: number;
	/** Whether a tool that might write has been called. */
	mutated: boolean;
	/** Every mutating call so far was an edit or write the gate could place: decided by hashing. */
	filesOnly: boolean;
	/** Each touched path's content before the run first touched it (work-tree relative, real). */
	before: Map<string, FileMark | null>;
	/** Hashing in flight for `before`, awaited before a start snapshot is taken. */
	pending: Set<Promise<unknown>>;
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
	private readonly realRoot: string | undefined;
	private readonly gitDirs: string[] = [];
	private readonly rules: IgnoreRules | undefined;
	private cache = new Map<string, FileMark>();
	private last?: RepoState;
	private run?: RunState;

	constructor(options: GateOptions) {
		this.options = options;
		this.repo = findRepo(options.cwd);
		this.git = this.repo ? createGitRunner(this.repo.root) : undefined;
		this.baseline = this.repo ? readHead(this.repo) : undefined;
		if (this.repo) {
			this.realRoot = realRootOf(this.repo.root);
			this.gitDirs = [realRootOf(this.repo.gitDir), realRootOf(this.repo.commonDir)];
			this.rules = new IgnoreRules(this.repo);
		}
	}

	/**
	 * Called before each tool runs. An edit or write records its file's content before the run
	 * first touches it; the first other mutating call records the start state.
	 */
	async beforeTool(toolName: string, input?: unknown): Promise<void> {
		if (READ_ONLY_TOOLS.has(toolName)) return;
		const run = this.currentRun();
		run.mutated = true;
		if (!this.repo) return;
		if (run.filesOnly && FILE_TOOLS.has(toolName)) {
			const placed = placeTouched(input, this.options.cwd, this.realRoot as string, this.gitDirs);
			if (placed.kind === "outside") return; // git never sees it: no change, as with `git status`
			if (placed.kind === "inside") {
				if (!run.before.has(placed.path)) await this.recordBefore(run, placed.path);
				return;
			}
		}
		run.filesOnly = false;
		run.start ??= this.captureStart(run);
		await run.start;
	}

	/** Called after each tool; outside git, successful edits and writes are the evidence. */
	afterTool(toolName: string, input: unknown, isError: boolean): void {
		if (READ_ONLY_TOOLS.has(toolName)) return;
		const run = this.currentRun();
		const path = (input as { path?: unknown } | undefined)?.path;
		if (isError || !FILE_TOOLS.has(toolName) || typeof path !== "string") return;
		const rel = (isAbsolute(path) ? relative(this.options.cwd, path) : path).split(sep).join("/");
		if (!rel.startsWith("../")) run.evidence.add(rel.replace(/^\.\//, ""));
	}

	/** At the settle boundary: what this run changed. Ends the run. */
	async finish(signal?: AbortSignal): Promise<GateVerdict> {
		const run = this.run;
		this.run = undefined;
		if (!run?.mutated) return { changed: false, paths: [], via: "none" };
		if (!this.repo || !this.git) {
			const paths = [...run.evidence].filter((p) => !this.options.ignore(p)).sort();
			return { changed: paths.length > 0, paths, via: "tools" };
		}
		if (run.filesOnly) return this.finishFilesOnly(run, signal);
		const start = await (run.start as Promise<RepoState | { error: string }>);
		if ("error" in start) return { changed: false, paths: [], via: "git", error: start.error };
		const end = await this.status(signal);
		if ("error" in end) return { changed: false, paths: [], via: "git", error: end.error };
		// A path whose start content is known but not whether it was dirty: clean now and the same
		// content means it was clean then too.
		const startDirty = new Map(start.dirty);
		for (const path of start.uncertain ?? []) {
			if (!end.dirty.has(path) && sameContent(startDirty.get(path) ?? null, await this.mark(path, true)))
				startDirty.delete(path);
		}
		const paths = new Set(changedPaths(startDirty, end.dirty, run.startedAt - MTIME_MARGIN_MS));
		if (start.head !== end.head && end.head) {
			const range = start.head
				? ["diff", "--name-only", "-z", start.head, end.head]
				: ["ls-tree", "-r", "-z", "--name-only", end.head];
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
		this.run ??= {
			startedAt: Date.now(),
			mutated: false,
			filesOnly: true,
			before: new Map(),
			pending: new Set(),
			evidence: new Set(),
		};
		return this.run;
	}

	private async recordBefore(run: RunState, path: string): Promise<void> {
		const now = this.mark(path, true);
		if (!(now instanceof Promise)) {
			if (!run.before.has(path)) run.before.set(path, now);
			return;
		}
		const hashing = now.then((mark) => {
			if (!run.before.has(path)) run.before.set(path, mark);
		});
		run.pending.add(hashing);
		try {
			await hashing;
		} finally {
			run.pending.delete(hashing);
		}
	}

	/** A run of edits and writes only: the touched files' content now against before their first touch. */
	private async finishFilesOnly(run: RunState, signal?: AbortSignal): Promise<GateVerdict> {
		await Promise.all(run.pending);
		const now = new Map<string, FileMark | null>();
		const changed: string[] = [];
		for (const [path, before] of run.before) {
			if (this.options.ignore(path)) continue;
			const mark = await this.mark(path, true);
			now.set(path, mark);
			if (!sameContent(before, mark)) changed.push(path);
		}
		const head = readHead(this.repo as RepoLocation);
		const kept = await this.notIgnored(changed, signal);
		if ("error" in kept) return { changed: false, paths: [], via: "files", error: kept.error };
		// Keep the previous end state true for the next run's start, without asking git.
		const last = this.last;
		if (last && head !== undefined && head === last.head) {
			last.uncertain ??= new Set();
			for (const [path, mark] of now) {
				if (kept.has(path)) {
					last.dirty.set(path, mark);
					last.uncertain.add(path);
				} else if (last.dirty.has(path)) last.dirty.set(path, mark);
			}
		} else this.last = undefined;
		const paths = changed.filter((p) => kept.has(p)).sort();
		return { changed: paths.length > 0, paths, via: "files", head: head ?? undefined };
	}

	/**
	 * The paths (among `paths`) git does not ignore: a path git listed at the last look is not
	 * ignored; the rest go to the in-process rules, and only what those cannot settle to git.
	 */
	private async notIgnored(paths: string[], signal?: AbortSignal): Promise<Set<string> | { error: string }> {
		const kept = new Set<string>();
		const open: string[] = [];
		for (const path of paths) {
			if (this.last?.dirty.has(path)) kept.add(path);
			else open.push(path);
		}
		const decided = (this.rules as IgnoreRules).decide(open);
		const unknown: string[] = [];
		for (const path of open) {
			const ignored = decided.get(path);
			if (ignored === false) kept.add(path);
			else if (ignored === undefined) unknown.push(path);
		}
		if (unknown.length === 0) return kept;
		// Tracked, or untracked and not excluded: exactly the paths `git status` could list.
		const listed = await (this.git as GitRunner).run(
			["--literal-pathspecs", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...unknown],
			{
				signal,
				timeoutMs: this.options.timeoutMs,
			},
		);
		if (!listed.ok) return { error: `git ls-files failed: ${listed.error}` };
		for (const path of listed.stdout.split("\0")) if (path) kept.add(path);
		return kept;
	}

	private async captureStart(run: RunState): Promise<RepoState | { error: string }> {
		await Promise.all(run.pending);
		const repo = this.repo as RepoLocation;
		const last = this.last;
		const head = readHead(repo);
		// Steady state: the previous end state still holds if HEAD did not move; re-stat its dirty
		// paths, taking the content from before the run's own edits where it made any.
		if (last && head !== undefined && head === last.head) {
			const dirty: DirtyMarks = new Map();
			for (const path of last.dirty.keys())
				dirty.set(path, run.before.has(path) ? (run.before.get(path) ?? null) : await this.mark(path));
			return { head, dirty, uncertain: new Set(last.uncertain) };
		}
		const now = await this.status();
		if ("error" in now || run.before.size === 0) return now;
		// The snapshot came after the run's first edits: put back what those files held before.
		const dirty = new Map(now.dirty);
		const uncertain = new Set<string>();
		const restored: string[] = [];
		for (const [path, before] of run.before) {
			if (this.options.ignore(path) || sameContent(before, await this.mark(path, true))) continue;
			if (now.dirty.has(path)) {
				dirty.set(path, before);
				uncertain.add(path);
			} else restored.push(path); // clean now but edited: dirty at the start, unless git ignores it
		}
		const kept = await this.notIgnored(restored);
		if ("error" in kept) return kept;
		for (const path of restored) if (kept.has(path)) dirty.set(path, run.before.get(path) ?? null);
		return { head: now.head, dirty, uncertain };
	}

	private async status(signal?: AbortSignal): Promise<RepoState | { error: string }> {
		const git = this.git as GitRunner;
		// HEAD comes from git's files when they can be read (`--branch` would also count commits
		// ahead of and behind the upstream, which costs on a big history); read after the status,
		// so a commit landing in between shows up as a moved HEAD (over-reported, never missed).
		const known = readHead(this.repo as RepoLocation);
		const args = ["--no-optional-locks", "status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames"];
		const running = git.run(known === undefined ? [...args, "--branch"] : args, {
			signal,
			timeoutMs: this.options.timeoutMs,
		});
		// While git works in its own process, look at the paths that were dirty at the last look:
		// most are in its answer. A write landing in that window falls between two runs either way.
		const early = new Map<string, FileMark | null | Promise<FileMark | null>>();
		for (const path of this.last?.dirty.keys() ?? []) early.set(path, this.mark(path));
		const result = await running;
		if (!result.ok) return { error: `git status failed: ${result.error}` };
		const parsed = parsePorcelainV2(result.stdout);
		if (known !== undefined) {
			const head = readHead(this.repo as RepoLocation);
			if (head === undefined) return { error: "HEAD could not be read after git status" };
			parsed.head = head;
		}
		const dirty: DirtyMarks = new Map();
		for (const path of parsed.paths) {
			if (this.options.ignore(path)) continue;
			dirty.set(path, await (early.get(path) ?? this.mark(path)));
		}
		// The cache only needs what is dirty now: memory follows the dirty set, not history.
		for (const path of this.cache.keys()) if (!dirty.has(path)) this.cache.delete(path);
		const state = { head: parsed.head, dirty };
		this.last = state;
		return state;
	}

	/**
	 * Stat (and, when the stat changed since the last look, hash) one path. `fresh` always
	 * hashes: an edit can keep a file's size and land within the same clock tick. A value at
	 * once unless a file over 256 KiB has to be read.
	 */
	private mark(path: string, fresh = false): FileMark | null | Promise<FileMark | null> {
		const abs = join((this.repo as RepoLocation).root, path);
		const keep = (mark: FileMark | null) => {
			if (mark) this.cache.set(path, mark);
			else this.cache.delete(path);
			return mark;
		};
		if (fresh) {
			const mark = hashPath(abs);
			return mark instanceof Promise ? mark.then(keep) : keep(mark);
		}
		const st = lstatOrNull(abs);
		if (!st) return keep(null);
		const probe = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, hash: "" };
		const cached = this.cache.get(path);
		if (cached && sameStat(cached, probe)) return cached;
		const hash = hashOf(abs, st);
		return typeof hash === "string" ? keep({ ...probe, hash }) : hash.then((h) => keep({ ...probe, hash: h }));
	}
}

function lstatOrNull(abs: string): Stats | null {
	try {
		return lstatSync(abs);
	} catch {
		return null; // missing, or a path through something that is not a folder
	}
}
