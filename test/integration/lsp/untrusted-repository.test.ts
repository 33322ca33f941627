// A repository that commits its own language server and TypeScript: that code runs only in a
// trusted project (see repository-code.ts for the committed fakes and their marker files).
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LspManager } from "../../../src/lsp/lsp-manager.ts";
import { lspSection } from "../../../src/lsp/lsp-status.ts";
import { groupMembers, waitForGroupGone } from "../../../src/lsp/process-tree.ts";
import { makeGitRepo, writeFiles } from "../../support/git.ts";
import { tempDir } from "../../support/temp.ts";
import { armFakeServer, FAKE_SERVER, fakeServerFiles, fakeTypeScriptFiles, REAL_SERVER } from "./repository-code.ts";
import { LSP_TEST_SETTINGS, managers, STRICT_TSCONFIG, shutDownManagers } from "./lsp-fixtures.ts";

const SETTINGS = LSP_TEST_SETTINGS;
const TSCONFIG = STRICT_TSCONFIG;

afterEach(shutDownManagers);

function repoWithFakeServer(marker: string): string {
	const root = makeGitRepo({
		"tsconfig.json": TSCONFIG,
		"src/a.ts": "export const a: number = 1;\n",
		...fakeServerFiles(marker),
	});
	armFakeServer(root);
	return root;
}

const markerFile = () => join(tempDir("pi-watchdog-marker-"), "ran");

function manager(root: string): LspManager {
	const lsp = new LspManager(root);
	managers.push(lsp);
	return lsp;
}

const statusText = (lsp: LspManager) => lspSection(true, lsp.status()).lines.join("\n");

describe("a repository's own language server", () => {
	it("never runs in an untrusted project, not even when the server is restarted; the bundled one checks instead", async () => {
		const marker = markerFile();
		const root = repoWithFakeServer(marker);
		const lsp = manager(root);
		writeFiles(root, { "src/a.ts": 'export const a: number = "one";\n' });
		const first = await lsp.check(["src/a.ts"], SETTINGS, false);
		expect(first.findings.map((f) => f.summary)).toEqual([
			expect.stringMatching(/^Type error at src\/a\.ts:1:14: Type 'string' is not assignable to type 'number'/),
		]);
		expect(lsp.status().server).toMatchObject({ from: "bundled", path: REAL_SERVER });
		// Kill the server outright: the next check has to start one again.
		const pid = lsp.status().pid as number;
		process.kill(-pid, "SIGKILL");
		await waitForGroupGone(pid, 5000);
		writeFiles(root, { "src/a.ts": 'export const a: number = "one";\nexport const b: string = 2;\n' });
		const second = await lsp.check(["src/a.ts"], SETTINGS, false);
		// With why it was skipped, if it was: this check failed once in a full run (an empty result).
		expect({ findings: second.findings.map((f) => f.summary), skipped: second.skipped }).toEqual({
			findings: [
				expect.stringMatching(/^Type error at src\/a\.ts:2:14: Type 'number' is not assignable to type 'string'/),
			],
			skipped: undefined,
		});
		expect(lsp.status().pid).not.toBe(pid);
		expect(existsSync(marker)).toBe(false);
	});

	it("is the one started in a trusted project", async () => {
		const marker = markerFile();
		const root = repoWithFakeServer(marker);
		const lsp = manager(root);
		writeFiles(root, { "src/a.ts": 'export const a: number = "one";\n' });
		expect((await lsp.check(["src/a.ts"], SETTINGS, true)).findings).toHaveLength(1);
		expect(existsSync(marker)).toBe(true);
		expect(lsp.status().server).toMatchObject({ from: "repository", path: join(root, FAKE_SERVER) });
	});

	it("follows trust as it changes during a session: the server started under the old answer is stopped", async () => {
		const marker = markerFile();
		const root = repoWithFakeServer(marker);
		const lsp = manager(root);
		writeFiles(root, { "src/a.ts": 'export const a: number = "one";\n' });
		await lsp.check(["src/a.ts"], SETTINGS, false);
		const untrustedPid = lsp.status().pid as number;
		expect(existsSync(marker)).toBe(false);
		// The user trusts the project: its own server takes over.
		await lsp.check(["src/a.ts"], SETTINGS, true);
		expect(lsp.status().server?.from).toBe("repository");
		expect(existsSync(marker)).toBe(true);
		expect(groupMembers(untrustedPid)).toEqual([]);
		// Trust withdrawn: the repository's server goes, the bundled one comes back.
		const trustedPid = lsp.status().pid as number;
		rmSync(marker);
		const result = await lsp.check(["src/a.ts"], SETTINGS, false);
		expect(lsp.status().server?.from).toBe("bundled");
		expect(groupMembers(trustedPid)).toEqual([]);
		expect(result.diagnostics).toHaveLength(1);
		expect(existsSync(marker)).toBe(false);
	});
});

describe("a repository's own TypeScript", () => {
	it("is never loaded in an untrusted project: the bundled TypeScript checks instead", async () => {
		const marker = markerFile();
		const root = makeGitRepo({
			"tsconfig.json": TSCONFIG,
			"src/a.ts": "export const a: number = 1;\n",
			...fakeTypeScriptFiles(marker),
		});
		const lsp = manager(root);
		writeFiles(root, { "src/a.ts": 'export const a: number = "one";\n' });
		expect((await lsp.check(["src/a.ts"], SETTINGS, false)).findings).toHaveLength(1);
		expect(lsp.status().typescript).toMatchObject({ from: "bundled", version: "5.9.3" });
		expect(existsSync(marker)).toBe(false);
	});

	it("is preferred in a trusted project", async () => {
		const marker = markerFile();
		const root = makeGitRepo({
			"tsconfig.json": TSCONFIG,
			"src/a.ts": "export const a: number = 1;\n",
			...fakeTypeScriptFiles(marker),
		});
		const lsp = manager(root);
		writeFiles(root, { "src/a.ts": 'export const a: number = "one";\n' });
		expect((await lsp.check(["src/a.ts"], SETTINGS, true)).findings).toHaveLength(1);
		expect(lsp.status().typescript).toMatchObject({ from: "workspace" });
		expect(existsSync(marker)).toBe(true);
	});
});

describe("status", () => {
	it("names the server and the TypeScript in use, where they came from and why", async () => {
		const marker = markerFile();
		const root = repoWithFakeServer(marker);
		const lsp = manager(root);
		writeFiles(root, { "src/a.ts": "export const a: number = 2;\n" });
		await lsp.check(["src/a.ts"], SETTINGS, false);
		const untrusted = statusText(lsp);
		expect(untrusted).toContain(
			`server: ${REAL_SERVER} (version 6.0.2, bundled: the project is not trusted, so its own node_modules/.bin server is not used)`,
		);
		expect(untrusted).toContain(
			"TypeScript: 5.9.3, bundled: the project is not trusted, so its own TypeScript is never loaded",
		);
		await lsp.check(["src/a.ts"], SETTINGS, true);
		const trusted = statusText(lsp);
		expect(trusted).toContain(
			`server: ${join(root, FAKE_SERVER)} (version unknown, repository: the project is trusted and has its own node_modules/.bin server)`,
		);
		expect(trusted).toContain("TypeScript: 5.9.3, bundled: the project is trusted but has no TypeScript of its own");
	});
});
