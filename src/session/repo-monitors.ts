// The monitors bound to the session's repository: the change gate and the language server,
// made at session start (a warm server is kept when the root stays).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { LspManager } from "../lsp/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import { ChangeGate } from "../review/index.ts";

const GIT_STATUS_TIMEOUT_MS = 15_000;

export interface RunMonitors {
	gate?: ChangeGate;
	lsp?: LspManager;
	/** Leaf entry when the current run started; undefined between runs. */
	startLeaf?: { leaf: string | null };
}

/** The gate and the LSP manager for the session's repository. */
export function startMonitors(previous: RunMonitors, cwd: string, configDirName: string): RunMonitors {
	const artifacts = `${configDirName}-subagents/`;
	const gate = new ChangeGate({
		cwd,
		ignore: (p) =>
			p.startsWith(artifacts) || p.startsWith("tmp/") || p.startsWith(".git/") || /(^|\/)node_modules\//.test(p),
		// The first snapshot holds up the agent's first write: a repository too big for this gets a notice, not a wait.
		timeoutMs: GIT_STATUS_TIMEOUT_MS,
	});
	const root = gate.repo?.root ?? cwd;
	let lsp = previous.lsp;
	if (lsp?.root !== root) {
		void lsp?.shutdown();
		lsp = new LspManager(root);
	}
	return { gate, lsp };
}

/**
 * Starts the language server at session start when the pre-pass is on and the project has
 * TypeScript (a tsconfig.json or jsconfig.json at its root): the first review then finds it warm.
 */
export function warmLsp(lsp: LspManager | undefined, resolved: ResolvedSettings, trusted: () => boolean): void {
	if (!lsp || !resolved.enabled || !resolved.settings.lsp.enabled) return;
	if (!["tsconfig.json", "jsconfig.json"].some((f) => existsSync(join(lsp.root, f)))) return;
	void lsp.start(resolved.settings.lsp, trusted()).catch(() => {});
}
