// Every git process the change gate starts goes through here, so that each is bounded by a
// timeout and an abort signal, and counted (the gate promises none for runs that only read).
// Each is one guarded process from git-process.ts, spawned directly: the gate's one
// `git status` per run is measured against a plain one.
import { runGit } from "./git-process.ts";

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

/** A status of a very large tree lists every changed and untracked path. */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

export function createGitRunner(cwd: string): GitRunner {
	let processes = 0;
	return {
		get processes() {
			return processes;
		},
		async run(args, options = {}) {
			try {
				const run = await runGit(args, {
					cwd,
					signal: options.signal,
					timeoutMs: options.timeoutMs ?? 30_000,
					maxBytes: MAX_OUTPUT_BYTES,
				});
				processes += run.processes;
				if (run.code !== 0) return { ok: false, stdout: "", error: run.stderr || `exit code ${run.code}` };
				return { ok: true, stdout: run.stdout };
			} catch (error) {
				processes++;
				return { ok: false, stdout: "", error: error instanceof Error ? error.message : String(error) };
			}
		},
	};
}
