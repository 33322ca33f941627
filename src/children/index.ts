// Child agents: the `subagent` tool (launches, actions on runs, the watchdog actions), the
// agent definitions (Markdown files with frontmatter) from the package, the user and a trusted
// project, the background runner, and git worktrees for writing children.
// Other folders import from here; files inside the folder import each other directly.
export { subagentTool } from "./subagent-tool.ts";
export { cleanStaleRuns, launcherDeps } from "./wiring.ts";
export { runBackground } from "./runner.ts";
export { gitWorktrees } from "./worktree-ops.ts";
export { type AgentDefinition, type AgentLoadError, formatAgentError, isAgentLoadError, parseAgentFile, type ToolPermission, TOOL_PERMISSIONS } from "./agent-file.ts";
export { loadAgents, type LoadAgentsOptions, type LoadedAgents, PACKAGE_AGENTS_DIR, PACKAGE_DIR } from "./agents.ts";
export { type ChildWorktree, cleanStaleWorktrees, createWorktree, removeWorktree } from "./worktree.ts";
export { type LandResult, landWorktree } from "./landing.ts";
