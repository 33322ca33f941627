// What the LSP integration tests share: a manager's settings roomy enough for a loaded machine, a strict
// tsconfig for the small projects they write, and those projects with their managers, shut down after each test.
import { LspManager } from "../../../src/lsp/lsp-manager.ts";
import { makeGitRepo } from "../../support/git.ts";

export const LSP_TEST_SETTINGS = { timeoutMs: 20_000, maxFiles: 20, idleMs: 60_000 };
export const STRICT_TSCONFIG = JSON.stringify({
	compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler" },
	include: ["src"],
});

// The trusted argument of LspManager.check, named.
export const TRUSTED = true;
export const UNTRUSTED = false;

/** Every manager a test started; a file that starts any calls `afterEach(shutDownManagers)`. */
export const managers: LspManager[] = [];

export async function shutDownManagers(): Promise<void> {
	for (const m of managers.splice(0)) await m.shutdown();
}

/** A git repository with the strict tsconfig and these files, and a manager for it that is shut down after the test. */
export function project(files: Record<string, string>): { root: string; lsp: LspManager } {
	const root = makeGitRepo({ "tsconfig.json": STRICT_TSCONFIG, ...files });
	const lsp = new LspManager(root);
	managers.push(lsp);
	return { root, lsp };
}
