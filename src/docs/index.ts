// The docs generated from the code (the settings reference, the `subagent` tool's reference)
// and the doc sections `/subagents-watchdog help` shows.
// Other folders import from here; files inside the folder import each other directly.
export { generatedDocs, writeGeneratedDocs } from "./generate.ts";
export { settingRows, settingsReference } from "./settings-reference.ts";
export { toolReference } from "./tool-reference.ts";
