// Git for the benches: one way to run it, and one way to make a folder a repository with
// everything in it committed (the fixture every bench starts from).
import { execFileSync } from "node:child_process";

export function git(cwd: string, ...args: string[]): string {
	return execFileSync("git", args, {
		cwd,
		encoding: "utf8",
		stdio: ["ignore", "pipe", "pipe"],
		maxBuffer: 256 * 1024 * 1024,
	});
}

/** `git init` in `dir` and one commit of everything in it, with a bench identity and no hooks. */
export function commitAll(dir: string, message: string): void {
	git(dir, "init", "-q", "-b", "main");
	git(dir, "config", "user.email", "bench@example.com");
	git(dir, "config", "user.name", "Bench");
	git(dir, "config", "commit.gpgsign", "false");
	// No automatic gc: after committing 50,000 loose objects git packs them in a detached
	// process, which ran on through the measurements and wrote into .git while it was removed.
	git(dir, "config", "gc.auto", "0");
	git(dir, "add", "-A");
	git(dir, "commit", "-q", "--no-verify", "-m", message);
}
