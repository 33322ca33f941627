// Every git process the watchdog starts goes through here (simple-git), so that each is
// bounded by a timeout and an abort signal, and counted (the change gate promises none for
// runs that only read).
import { simpleGit } from "simple-git";

export interface GitResult {
	ok: boolean;
	stdout: string;
	error?: string;
}

export interface GitRunner {
	run(args: string[], options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<GitResult>;
	/** How many git processes this runner has started. */
	readonly processes: number;
}

export function createGitRunner(cwd: string): GitRunner {
	let processes = 0;
	return {
		get processes() {
			return processes;
		},
		async run(args, options = {}) {
			processes++;
			const timeoutMs = options.timeoutMs ?? 30_000;
			const controller = new AbortController();
			const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
			const timer = setTimeout(() => controller.abort(), timeoutMs);
			try {
				// The environment is inherited untouched: simple-git refuses an explicit one that carries
				// EDITOR, PAGER and the like, which users have set. Callers pass --no-optional-locks.
				const git = simpleGit({ baseDir: cwd, abort: signal, maxConcurrentProcesses: 4, trimmed: false });
				const stdout = await git.raw(args);
				return { ok: true, stdout };
			} catch (error) {
				const message = error instanceof Error ? error.message : String(error);
				return { ok: false, stdout: "", error: controller.signal.aborted ? `git ${args.find((a) => !a.startsWith("-")) ?? ""} timed out after ${timeoutMs} ms` : message.trim() };
			} finally {
				clearTimeout(timer);
			}
		},
	};
}
