// Child agents: the `subagent` tool (launches, actions on runs, the watchdog actions), the
// agent definitions (Markdown files with frontmatter) from the package, the user and a trusted
// project, the background runner, and worktrees for writing children as a launch uses them
// (the git work itself is in src/git/).
// Other folders import from here; files inside the folder import each other directly.
export { subagentTool } from "./subagent-tool.ts";
export { SUBAGENT_DESCRIPTION, SUBAGENT_TOOL } from "./tool-card.ts";
export { subagentParameters } from "./tool-params.ts";
export { cleanStaleRuns, launcherDeps } from "./wiring.ts";
export { runBackground } from "./runner.ts";
export { gitWorktrees } from "./worktree-ops.ts";
export {
	type AgentDefinition,
	type AgentLoadError,
	formatAgentError,
	isAgentLoadError,
	parseAgentFile,
	type ToolPermission,
	TOOL_PERMISSIONS,
} from "./agent-file.ts";
export { loadAgents, type LoadAgentsOptions, type LoadedAgents, PACKAGE_AGENTS_DIR } from "./agents.ts";
