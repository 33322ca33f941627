// The text of `/subagents-watchdog status`.
// Other folders import from here; files inside the folder import each other directly.
export { baselineSections, formatStatus, type StatusSection } from "./status-text.ts";
