// Small helpers shared everywhere: guarded file reads, text, JSON objects, status sections,
// `*`/`?` globs over names (model references, tool names).
// Other folders import from here; files inside the folder import each other directly.
export { whenAborted } from "./abort.ts";
export { memoPerCommand } from "./command-memo.ts";
export { isPlainObject, readJsonObject } from "./json.ts";
export { fileToken, isInside, readFileInRoot, realRoot, type SafeRead, stripBom, userRoot } from "./safe-file.ts";
export type { StatusSection } from "./status-section.ts";
export { capText, clip, clipCounting, contentText, headAndTail, oneLine, quoteLines, thousands } from "./text.ts";
export { compileStarGlob, MAX_STAR_GLOB_CHARS, MAX_STAR_GLOB_SUBJECT, type StarGlob } from "./star-glob.ts";
export { processAlive } from "./process.ts";
export { LOADED_FROM, nearestPackageDir, PACKAGE_DIR, RUNS_BUNDLE } from "./package-dir.ts";
export { BUNDLE_FILE } from "./bundle-state.ts";
export { CODE_CACHE_KEY, settledOnce } from "./code-cache-signal.ts";
