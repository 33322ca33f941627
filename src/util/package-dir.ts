// The package's own folder (package.json, prompts/, docs/, agents/, bin/). Found by walking up from this
// module to the nearest package.json, so it is the same whether Pi loaded the TypeScript sources (src/util/)
// or the prebuilt bundle (dist/).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function nearestPackageDir(file: string): string {
	for (let dir = dirname(file); ; dir = dirname(dir)) {
		if (existsSync(join(dir, "package.json"))) return dir;
		if (dirname(dir) === dir) return dirname(file);
	}
}

export const PACKAGE_DIR = nearestPackageDir(fileURLToPath(import.meta.url));

/** Which code this process runs: the prebuilt bundle (dist/pi-watchdog.cjs) or the TypeScript sources. */
export const LOADED_FROM = fileURLToPath(import.meta.url);
export const RUNS_BUNDLE = LOADED_FROM.endsWith(".cjs");
