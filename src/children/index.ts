// Child agents. For now the `subagent` tool with the watchdog actions; launching children comes here.
// Other folders import from here; files inside the folder import each other directly.
export { subagentTool } from "./subagent-tool.ts";
export { type ChildWorktree, cleanStaleWorktrees, createWorktree, type LandResult, landWorktree, removeWorktree } from "./worktree.ts";
