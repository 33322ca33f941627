// The text of `/subagents-watchdog status`.
// Other folders import from here; files inside the folder import each other directly.
export { baselineSections, formatStatus, onOff, type StatusSection } from "./status-text.ts";
export { BRIEF_MAX_LINES, type BriefFinding, formatBrief } from "./status-brief.ts";
