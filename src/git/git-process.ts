// One git process: an argument array (never a shell string), a deadline, an abort signal,
// bounded output, and the exit code kept. The change gate's runner (runner.ts) and the
// worktrees (worktree.ts, landing.ts) both start git through here; worktrees also need a private
// GIT_INDEX_FILE, bytes fed on stdin, and the exit code of `merge-tree` (1 means "conflicts").
// No git process starts anywhere else (test/util/git-process.test.ts checks), and each runs with
// the repository's hooks, fsmonitor and configured programs off (git-guard.ts).
import { spawn } from "node:child_process";
import {
	cachedDrivers,
	DRIVER_LISTING,
	driverEnv,
	guardedArgs,
	keepDrivers,
	mayRunDrivers,
	PROGRAM_VARIABLES,
	parseDriverListing,
	QUIET_PROGRAMS,
	type RepoDrivers,
} from "./git-guard.ts";

export interface GitRun {
	code: number;
	stdout: string;
	stderr: string;
	/** Git processes this call started: its own, and a listing of the repository's drivers when not known yet. */
	processes: number;
}

export interface GitOptions {
	cwd: string;
	/** Added to (and overriding) the cleaned inherited environment. */
	env?: Record<string, string>;
	input?: string;
	signal?: AbortSignal;
	timeoutMs?: number;
	/** Output past this is an error (the process is killed). */
	maxBytes?: number;
}

/** A git call that can take a while on a large tree (add -A, checkout). */
export const SLOW_GIT_MS = 120_000;
const QUICK_GIT_MS = 30_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Inherited variables that would point git at another repository, index or work tree. */
const REPOSITORY_VARIABLES = [
	"GIT_DIR",
	"GIT_WORK_TREE",
	"GIT_INDEX_FILE",
	"GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_COMMON_DIR",
	"GIT_NAMESPACE",
	"GIT_PREFIX",
];

function gitEnv(extra: Record<string, string> = {}, drivers?: RepoDrivers): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	for (const name of [...REPOSITORY_VARIABLES, ...PROGRAM_VARIABLES]) delete env[name];
	// Never wait on a prompt; never take the index lock just to refresh stat data.
	const quiet = { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C", ...QUIET_PROGRAMS };
	return { ...env, ...quiet, ...driverEnv(drivers, env), ...extra };
}

/** The filter and merge drivers the repository at `cwd` defines (its config, not yours); none when git cannot say. */
async function listDrivers(options: GitOptions): Promise<RepoDrivers | undefined> {
	// Exit code 1 is "no entry matched"; anything else (not a repository, no folder) leaves nothing to blank.
	const listing = { cwd: options.cwd, signal: options.signal, timeoutMs: QUICK_GIT_MS, maxBytes: MAX_LISTING_BYTES };
	const run = await spawnGit(guardedArgs(DRIVER_LISTING), listing);
	if (run.code !== 0 && run.code !== 1) return undefined;
	const listed = parseDriverListing(run.stdout, options.cwd);
	keepDrivers(options.cwd, listed);
	return listed.drivers;
}

const MAX_LISTING_BYTES = 4 * 1024 * 1024;

/** Runs git; resolves with the exit code whatever it is; rejects only when git could not run or ran past its time. */
export async function runGit(args: string[], options: GitOptions): Promise<GitRun> {
	let drivers: RepoDrivers | undefined;
	let listings = 0;
	if (mayRunDrivers(args)) {
		try {
			drivers = cachedDrivers(options.cwd);
			if (!drivers) {
				listings++;
				drivers = await listDrivers(options);
			}
		} catch (error) {
			// The folder is missing or git is not there: the call itself says so, unless it was stopped.
			if (options.signal?.aborted) throw error;
		}
	}
	const run = await spawnGit(guardedArgs(args), options, drivers);
	return { ...run, processes: run.processes + listings };
}

/** One guarded git process (settings from git-guard.ts come with `args` already). */
function spawnGit(args: string[], options: GitOptions, drivers?: RepoDrivers): Promise<GitRun> {
	const timeoutMs = options.timeoutMs ?? QUICK_GIT_MS;
	const maxBytes = options.maxBytes ?? MAX_OUTPUT_BYTES;
	const what = `git ${args.find((a, i) => !a.startsWith("-") && args[i - 1] !== "-c") ?? ""}`.trim();
	return new Promise((resolvePromise, reject) => {
		if (options.signal?.aborted) return reject(new Error(`${what} was aborted`));
		// No stdin pipe unless there is input: git then reads an empty stdin, one pipe fewer per call.
		const stdio: ["ignore" | "pipe", "pipe", "pipe"] = [
			options.input === undefined ? "ignore" : "pipe",
			"pipe",
			"pipe",
		];
		const child = spawn("git", args, { cwd: options.cwd, env: gitEnv(options.env, drivers), stdio });
		const out: Buffer[] = [];
		const err: Buffer[] = [];
		let bytes = 0;
		let failure: Error | undefined;
		const stop = (error: Error) => {
			failure ??= error;
			child.kill("SIGKILL");
		};
		const collect = (into: Buffer[]) => (chunk: Buffer) => {
			bytes += chunk.length;
			if (bytes > maxBytes) stop(new Error(`${what} wrote more than ${maxBytes} bytes`));
			else into.push(chunk);
		};
		child.stdout?.on("data", collect(out));
		child.stderr?.on("data", collect(err));
		const timer = setTimeout(() => stop(new Error(`${what} timed out after ${timeoutMs} ms`)), timeoutMs);
		const onAbort = () => stop(new Error(`${what} was aborted`));
		options.signal?.addEventListener("abort", onAbort, { once: true });
		const done = () => {
			clearTimeout(timer);
			options.signal?.removeEventListener("abort", onAbort);
		};
		child.on("error", (error: NodeJS.ErrnoException) => {
			done();
			// Node says ENOENT both for a missing git and for a missing folder.
			reject(
				failure ??
					new Error(
						error.code === "ENOENT"
							? `${what} could not start in ${options.cwd}: git is not on PATH or the folder does not exist`
							: `${what} could not start: ${error.message}`,
					),
			);
		});
		child.on("close", (code) => {
			done();
			if (failure) return reject(failure);
			const stdout = Buffer.concat(out).toString("utf8");
			resolvePromise({ processes: 1, code: code ?? -1, stdout, stderr: Buffer.concat(err).toString("utf8").trim() });
		});
		if (child.stdin) {
			// A git that exits before reading its input must not crash us with EPIPE.
			child.stdin.on("error", () => {});
			child.stdin.end(options.input);
		}
	});
}

/** Runs git and returns its stdout; a non-zero exit is an Error carrying git's own words. */
export async function gitOk(args: string[], options: GitOptions): Promise<string> {
	const run = await runGit(args, options);
	if (run.code !== 0)
		throw new Error(`git ${args.slice(0, 2).join(" ")} failed: ${run.stderr || `exit code ${run.code}`}`);
	return run.stdout;
}
