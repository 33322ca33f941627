// How the bundled language server's Node processes are told to keep their heaps near their live size (see
// tsserver-preload.cjs). Only the bundled server: it runs on this Node, whose V8 takes these flags; a
// repository's own server or one on PATH runs on whatever `node` it finds, and is left as it is.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_DIR } from "../util/index.ts";

/**
 * The preload each of the bundled server's Node processes loads (NODE_OPTIONS reaches the tsserver it forks).
 * Absent when the file is missing: Node would refuse to start the server rather than run without it.
 */
const preload = join(PACKAGE_DIR, "src", "lsp", "tsserver-preload.cjs");
export const SERVER_PRELOAD: string | undefined = existsSync(preload) ? preload : undefined;

/**
 * Node flags of the bundled server's own process (not its tsserver): V8 grows the young generation with the
 * allocation rate and keeps it grown (16 MiB after a few hundred checks); the server's messages need far less.
 */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=2"];

/**
 * NODE_OPTIONS with `--require preload` added after what the user set. Node reads the variable split at
 * spaces, with double quotes around an argument and a backslash escaping the next character inside them.
 */
export function nodeOptionsWith(existing: string | undefined, preload: string): string {
	const require = `--require "${preload.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
	return existing?.trim() ? `${existing} ${require}` : require;
}
