#!/usr/bin/env node
// The background runner of `subagent` launches with `async: true`: started by the parent with
// its own Node (`process.execPath`), detached, with the run folder as its one argument. Like
// the CLI it loads the TypeScript sources through jiti.
import { createJiti } from "jiti";

const jiti = createJiti(import.meta.url);
const { createWatchdogExtension } = await jiti.import("../src/extension.ts");
const { gitWorktrees, runBackground } = await jiti.import("../src/children/index.ts");
const runDir = process.argv[2];
if (!runDir) {
	process.stderr.write("usage: subagent-runner.mjs <run folder>\n");
	process.exit(2);
}
process.exitCode = await runBackground(runDir, {
	childWatchdog: (options) => createWatchdogExtension(options),
	worktrees: gitWorktrees,
});
// Timers of finished sessions (a language server's idle timer) must not keep the runner alive.
setTimeout(() => process.exit(), 2_000).unref();
