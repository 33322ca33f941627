// What Pi loads from this package (package.json `pi.extensions`). The file sits at the package root so that
// Pi's list of loaded extensions names it after the package (`pi-watchdog`), not after a file. The extension
// itself is src/extension.ts; this file picks how to load it:
// - the prebuilt bundle (dist/pi-watchdog.cjs, `npm run build`) when it is current: one file Node loads
//   at once instead of ~290 that Pi's loader transforms one by one (about 0.2 s and 20 MB of every start),
//   which loads the watchdog's own bundle (dist/chunks/) when a session first needs it;
// - the TypeScript sources otherwise (no bundle, as after `pi install git:…`, or sources edited since).
// The bundle does not contain Pi's packages: it uses the modules handed over here, which are the host's own
// (Pi's loader resolves these imports to them), so a class or a session manager is the same object as Pi's.
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as piAi from "@earendil-works/pi-ai";
import * as piCodingAgent from "@earendil-works/pi-coding-agent";
import * as piTui from "@earendil-works/pi-tui";
import * as typebox from "typebox";
import * as typeboxValue from "typebox/value";
import type * as Extension from "./src/extension.ts";
import { BUNDLE_FILE, bundleIsCurrent } from "./src/util/bundle-state.ts";
import { codeCacheDir, codeCacheSettled, newLoad, requireCompiled } from "./src/util/code-cache.ts";

/** Keep in step with HOST_MODULES and HOST_KEY in scripts/build.mjs (a unit test compares them). */
const HOST_MODULES = {
	"@earendil-works/pi-ai": piAi,
	"@earendil-works/pi-coding-agent": piCodingAgent,
	"@earendil-works/pi-tui": piTui,
	typebox,
	"typebox/value": typeboxValue,
};
const HOST_KEY = Symbol.for("pi-watchdog.host");
/** Keep in step with CODE_CACHE_KEY in src/util/code-cache-signal.ts (a unit test compares them). */
const CODE_CACHE_KEY = Symbol.for("pi-watchdog.code-cache");
const ROOT = fileURLToPath(new URL(".", import.meta.url));
const BUNDLE = join(ROOT, BUNDLE_FILE);
const DIST = dirname(BUNDLE) + sep;

function loadBundle(): typeof Extension | undefined {
	if (!bundleIsCurrent(ROOT)) return undefined;
	try {
		(globalThis as Record<symbol, unknown>)[HOST_KEY] = HOST_MODULES;
		// The watchdog says when a settle has run (src/util/code-cache-signal.ts): caches made after one hold more.
		(globalThis as Record<symbol, unknown>)[CODE_CACHE_KEY] = { settled: codeCacheSettled };
		// Each load evaluates the bundles anew (a `/reload` too, as it would the sources), compiled with the
		// code cache of earlier starts (src/util/code-cache.ts).
		return requireCompiled(BUNDLE, newLoad(DIST, codeCacheDir())) as typeof Extension;
	} catch {
		return undefined; // a damaged bundle: the sources still work
	}
}

const extension = loadBundle() ?? ((await import("./src/extension.ts")) as typeof Extension);
export const createWatchdogExtension = extension.createWatchdogExtension;
export default extension.default;
