// Repository code as an attacker would commit it: an executable node_modules/.bin server and a
// node_modules/typescript whose tsserver.js runs on load. Each appends to a marker file when it
// runs (and then does the real job), so "never ran" can be checked on disk.
import { chmodSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
export const REAL_SERVER = join(dirname(require.resolve("typescript-language-server/package.json")), "lib", "cli.mjs");
const REAL_TSSERVER_IMPL = join(dirname(require.resolve("typescript/package.json")), "lib", "_tsserver.js");
export const FAKE_SERVER = "node_modules/.bin/typescript-language-server";

/** Files of a server that leaves `marker` behind, then serves for real. Make it executable with `armFakeServer`. */
export function fakeServerFiles(marker: string): Record<string, string> {
	return { [FAKE_SERVER]: `#!/bin/sh\necho ran >> '${marker}'\nexec '${process.execPath}' '${REAL_SERVER}' "$@"\n` };
}

export function armFakeServer(root: string): void {
	chmodSync(join(root, FAKE_SERVER), 0o755);
}

/** Files of a TypeScript whose tsserver.js leaves `marker` behind, then runs the real tsserver. */
export function fakeTypeScriptFiles(marker: string): Record<string, string> {
	return {
		"node_modules/typescript/package.json": JSON.stringify({ name: "typescript", version: "5.9.3" }),
		"node_modules/typescript/lib/tsserver.js": `require("node:fs").appendFileSync(${JSON.stringify(marker)}, "loaded\\n");\nmodule.exports = require(${JSON.stringify(REAL_TSSERVER_IMPL)});\n`,
	};
}
