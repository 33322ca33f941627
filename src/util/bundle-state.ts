// Whether the prebuilt bundle (dist/pi-watchdog.cjs, `npm run build`) may be loaded instead of the sources.
// index.ts imports this file alone (not util/index.ts), so the check costs Pi's loader one small file.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, sep } from "node:path";

export const BUNDLE_FILE = join("dist", "pi-watchdog.cjs");
export const BUILD_MANIFEST = join("dist", "build.json");

/**
 * Whether dist/pi-watchdog.cjs (and the bundle it loads) is built from the files now in `root`. An installed copy
 * (no `.git`) ships the bundle built from its own files. In a checkout each input's size and mtime must match the
 * build manifest, so an edit (or a checkout of another commit) falls back to the sources until the next build.
 * `PI_WATCHDOG_SOURCES=1` always loads the sources.
 */
export function bundleIsCurrent(root: string, env: NodeJS.ProcessEnv = process.env): boolean {
	if (env.PI_WATCHDOG_SOURCES === "1") return false;
	// Paths by concatenation: path.join, run cold at every start for each of ~380 inputs, cost more than the stats.
	const base = root.endsWith(sep) ? root : root + sep;
	try {
		if (!existsSync(base + BUNDLE_FILE)) return false;
		const manifest = JSON.parse(readFileSync(base + BUILD_MANIFEST, "utf8")) as {
			inputs?: Record<string, [number, number]>;
			outputs?: string[];
		};
		const inputs = manifest.inputs ?? {};
		if (Object.keys(inputs).length === 0) return false;
		// The watchdog's own bundle loads later, when a session needs it: it must be there now.
		if (!manifest.outputs?.every((file) => existsSync(`${base}dist${sep}${file}`))) return false;
		if (!existsSync(`${base}.git`)) return true;
		for (const file in inputs) {
			const [size, mtimeMs] = inputs[file];
			const now = statSync(base + file, { throwIfNoEntry: false });
			if (now?.size !== size || now.mtimeMs !== mtimeMs) return false;
		}
		return true;
	} catch {
		return false;
	}
}
