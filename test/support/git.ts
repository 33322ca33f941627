// Real git repositories in temp folders.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "./temp.ts";

export function git(cwd: string, ...args: string[]): string {
	return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Writes files (path → content) below `root`, creating folders. */
export function writeFiles(root: string, files: Record<string, string>): void {
	for (const [path, content] of Object.entries(files)) {
		const full = join(root, path);
		mkdirSync(dirname(full), { recursive: true });
		writeFileSync(full, content);
	}
}

/** A git repository with one commit holding `files`. */
export function makeGitRepo(files: Record<string, string> = { "README.md": "# test repo\n" }): string {
	const dir = tempDir("pi-watchdog-repo-");
	git(dir, "init", "-q", "-b", "main");
	git(dir, "config", "user.email", "test@example.com");
	git(dir, "config", "user.name", "Test");
	git(dir, "config", "commit.gpgsign", "false");
	writeFiles(dir, files);
	git(dir, "add", "-A");
	git(dir, "commit", "-q", "-m", "initial");
	return dir;
}

/**
 * Counts every git process this test process starts from now on: a `git` first on PATH that
 * logs one line and runs the real git. `count()` reads the log; `restore()` puts PATH back.
 */
export function countGitProcesses(): { count: () => number; restore: () => void } {
	const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
	const bin = tempDir("pi-watchdog-gitshim-");
	const log = join(bin, "spawns.log");
	writeFileSync(log, "");
	writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
	const saved = process.env.PATH;
	process.env.PATH = `${bin}:${saved ?? ""}`;
	return {
		count: () => readFileSync(log, "utf8").split("\n").filter(Boolean).length,
		restore: () => {
			process.env.PATH = saved;
		},
	};
}
