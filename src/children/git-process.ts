// The worktree code's git process: the shared runner in util/.
export { gitOk, type GitOptions, type GitRun, runGit, SLOW_GIT_MS } from "../util/index.ts";
