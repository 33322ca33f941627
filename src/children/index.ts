// Child agents: the `subagent` tool with the watchdog actions, and the agent definitions
// (Markdown files with frontmatter) from the package, the user and a trusted project.
// Other folders import from here; files inside the folder import each other directly.
export { subagentTool } from "./subagent-tool.ts";
export { cleanStaleRuns, launcherDeps } from "./wiring.ts";
export { runBackground } from "./runner.ts";
export { gitWorktrees } from "./worktree-ops.ts";
export { type AgentDefinition, type AgentLoadError, formatAgentError, isAgentLoadError, parseAgentFile, type ToolPermission, TOOL_PERMISSIONS } from "./agent-file.ts";
export { AGENT_FILE_MAX_BYTES, listAgentFiles, loadAgents, type LoadAgentsOptions, type LoadedAgents, PACKAGE_AGENTS_DIR, PACKAGE_DIR } from "./agents.ts";
