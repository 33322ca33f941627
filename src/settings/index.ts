// Settings under subagents.watchdog: schema, resolution by source, the store, writes, and oversight judgement.
// Other folders import from here; files inside the folder import each other directly.
export {
	applyConfigure,
	planConfigure,
	settingsAtScope,
	type ConfigureEnv,
	type ConfigurePlan,
	type ConfigureRequest,
	type ConfigureScope,
} from "./configure.ts";
export { childOffReason, childView } from "./child-view.ts";
export { placeBareModels } from "./bare-models.ts";
export { loweredOversight } from "./oversight.ts";
export {
	type ChildPolicyLayer,
	forEachLeaf,
	howToTurnOn,
	type ResolvedSettings,
	type SettingsProblem,
} from "./resolve.ts";
export {
	MAX_CHILD_TIMEOUT_MS,
	MAX_CHILD_TIMEOUT_TEXT,
	type SettingsLayer,
	UNSUPPORTED_KEYS,
} from "./schema.ts";
export type { WatchdogSettings } from "./defaults.ts";
export {
	type ProjectContext,
	type ProjectFileTrust,
	type SettingsLocation,
	SettingsStore,
	TRUST_COMMAND,
} from "./store.ts";
export { parseJson, SETTINGS_MAX_BYTES } from "./files.ts";
export { findProjectSettings, repositoryTop } from "./project-file.ts";
export { type HeldChange, settingsDiff, WatchedFileCache } from "./file-watch.ts";
// What the generated settings reference (src/docs/) reads.
export { DEFAULT_IN_WORDS, SETTING_DESCRIPTIONS } from "./descriptions.ts";
export { projectRule } from "./tighten.ts";
export { cadenceEvery, fullLayerSchema, modelRefField, thinkingField } from "./schema.ts";
export { DEFAULT_SETTINGS } from "./defaults.ts";
export { masterSwitchOff } from "./master-switch.ts";
