// Everything that starts git or reads git's own files: the one guarded runner every git process
// goes through (hooks, fsmonitor, filters and drivers off), the change gate's counted runner,
// the repository's location, HEAD, config, index and ignore rules read without starting git,
// `git status` parsing, content hashes, and child worktrees with their landing.
// Other folders import from here; files inside the folder import each other directly.
export { gitOk, type GitOptions, type GitRun, runGit, SLOW_GIT_MS } from "./git-process.ts";
export { createGitRunner, type GitResult, type GitRunner } from "./runner.ts";
export { findRepo, readHead, type RepoLocation } from "./repo.ts";
export { ignoredByGit, repositoryTop } from "./queries.ts";
export { IgnoreRules } from "./ignore-rules.ts";
export { parsePorcelainV2, type PorcelainStatus } from "./status-parse.ts";
export { hashOf, hashPath, type PathMark } from "./file-hash.ts";
export { type ChildWorktree, cleanStaleWorktrees, createWorktree, removeWorktree } from "./worktree.ts";
export { type LandResult, landWorktree } from "./landing.ts";
