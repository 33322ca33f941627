// Which processes are alive, for tests that check nothing is left behind.
import { readFileSync } from "node:fs";
import { listProcesses } from "../../src/lsp/process-tree.ts";

/** Live processes whose command line mentions `text`. */
export function running(text: string): number[] {
	return listProcesses()
		.filter((p) => p.state !== "Z")
		.filter((p) => {
			try {
				return readFileSync(`/proc/${p.pid}/cmdline`, "utf8").includes(text);
			} catch {
				return false;
			}
		})
		.map((p) => p.pid);
}
