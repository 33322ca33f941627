// The LSP pre-pass when the language server is missing, crashes, aborts or hangs, and how its
// processes are stopped (at shutdown and after lsp.idleMs): it says why, raises nothing, and
// leaves no process behind.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LspManager } from "../../../src/lsp/lsp-manager.ts";
import { groupMembers } from "../../../src/lsp/process-tree.ts";
import { writeFiles } from "../../support/git.ts";
import { running } from "../../support/processes.ts";
import { until } from "../../support/subagent-cli.ts";
import { tempDir } from "../../support/temp.ts";
import {
	LSP_TEST_SETTINGS as SETTINGS,
	managers,
	project,
	shutDownManagers,
	TRUSTED,
	UNTRUSTED,
} from "./lsp-fixtures.ts";

afterEach(shutDownManagers);

describe("LSP failures", () => {
	function fakeServer(root: string, script: string): void {
		const bin = join(root, "node_modules", ".bin");
		mkdirSync(bin, { recursive: true });
		const path = join(bin, "typescript-language-server");
		writeFileSync(path, `#!/usr/bin/env node\n${script}\n`);
		chmodSync(path, 0o755);
	}

	// The bundled packages resolved from a folder without them: as if the install were broken.
	const noBundled = () => join(tempDir("pi-watchdog-no-bundled-"), "here.js");

	it("says unavailable when no server is found, and raises nothing", async () => {
		const { root } = project({ "src/a.ts": "export const a = 1;\n" });
		const lsp = new LspManager(root, { bundledFrom: noBundled(), pathEnv: "/usr/bin:/bin" });
		managers.push(lsp);
		writeFiles(root, { "src/a.ts": 'export const a: number = "x";\n' });
		expect(await lsp.check(["src/a.ts"], SETTINGS, TRUSTED)).toMatchObject({ findings: [], checked: [] });
		expect(lsp.status()).toMatchObject({
			state: "unavailable",
			lastResult:
				"unavailable: the bundled server could not be found, none is on PATH or in node_modules/.bin (the watchdog never installs one)",
		});
	});

	it("falls back to a server on PATH when the bundled one is missing", async () => {
		const { root } = project({ "src/a.ts": "export const a = 1;\n" });
		const lsp = new LspManager(root, {
			bundledFrom: noBundled(),
			pathEnv: `relative/bin:${resolve("node_modules/.bin")}`,
		});
		managers.push(lsp);
		writeFiles(root, { "src/a.ts": 'export const a: number = "x";\n' });
		expect((await lsp.check(["src/a.ts"], SETTINGS, TRUSTED)).findings).toHaveLength(1);
		expect(lsp.status().server).toMatchObject({
			from: "PATH",
			path: resolve("node_modules/.bin/typescript-language-server"),
			why: "the bundled server could not be found and the project has no node_modules/.bin server",
		});
	});

	it("runs nothing in an untrusted project when the bundled TypeScript is missing, even with a server on PATH", async () => {
		const { root } = project({ "src/a.ts": "export const a = 1;\n" });
		const lsp = new LspManager(root, { bundledFrom: noBundled(), pathEnv: resolve("node_modules/.bin") });
		managers.push(lsp);
		writeFiles(root, { "src/a.ts": 'export const a: number = "x";\n' });
		expect(await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED)).toMatchObject({ findings: [], checked: [] });
		expect(lsp.status()).toMatchObject({
			state: "unavailable",
			lastResult:
				"unavailable: the bundled TypeScript could not be found, and the project is not trusted, so its own is not used",
		});
	});

	it("restarts a server that crashes once, then says failed", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a = 1;\n" });
		fakeServer(root, "process.stdin.once('data', () => process.exit(3));");
		writeFiles(root, { "src/a.ts": "export const a = 2;\n" });
		const started = Date.now();
		expect((await lsp.check(["src/a.ts"], { ...SETTINGS, timeoutMs: 5000 }, TRUSTED)).findings).toEqual([]);
		expect(Date.now() - started).toBeLessThan(5000);
		expect(lsp.status()).toMatchObject({
			state: "failed",
			lastResult: expect.stringMatching(/^failed: the language server exited with code 3/),
		});
		// Failed stays failed for the session: no more attempts.
		expect(await lsp.check(["src/a.ts"], SETTINGS, TRUSTED)).toMatchObject({
			checked: [],
			skipped: expect.stringMatching(/^the language server failed earlier this session: /),
		});
	});

	it("says a server stopped because its tsserver aborted, and which setting to raise", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a = 1;\n" });
		// What typescript-language-server writes when its tsserver dies (as at the heap limit), then it exits.
		const said = "Error: tsserver process has exited (exit code: null, signal: SIGABRT). Stopping the server.";
		fakeServer(
			root,
			`process.stdin.once('data', () => { process.stderr.write(${JSON.stringify(said)} + "\\n", () => process.exit(1)); });`,
		);
		writeFiles(root, { "src/a.ts": "export const a = 2;\n" });
		expect((await lsp.check(["src/a.ts"], { ...SETTINGS, timeoutMs: 5000 }, TRUSTED)).findings).toEqual([]);
		expect(lsp.status().lastResult).toMatch(
			/^failed: the language server exited with code 1 because its tsserver exited \(signal SIGABRT\); .*raise lsp\.serverMemoryMb/,
		);
	});

	it("gives up on a server that does not answer within the timeout, and leaves no process", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a = 1;\n" });
		fakeServer(root, "process.stdin.resume(); setInterval(() => {}, 1000);");
		writeFiles(root, { "src/a.ts": "export const a = 2;\n" });
		const probe = setInterval(() => seen.push(...running(join(root, "node_modules"))), 100);
		const seen: number[] = [];
		const started = Date.now();
		// Short: the server never answers, so the check lasts the whole timeout, twice.
		const timeoutMs = 600;
		await lsp.check(["src/a.ts"], { ...SETTINGS, timeoutMs }, TRUSTED);
		expect(Date.now() - started).toBeLessThan(timeoutMs + 5000); // the timeout, plus stopping the server
		expect(lsp.status().lastResult).toMatch(
			/no answer to initialize within \d+ ms; it will be restarted once, at the next review/,
		);
		await lsp.check(["src/a.ts"], { ...SETTINGS, timeoutMs }, TRUSTED);
		expect(lsp.status()).toMatchObject({
			state: "failed",
			lastResult: expect.stringMatching(/^failed: no answer to initialize/),
		});
		clearInterval(probe);
		expect(seen.length).toBeGreaterThan(0); // the hanging server did run
		expect(running(join(root, "node_modules"))).toEqual([]);
	});

	it("stops the server and every process it started at shutdown", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a = 1;\n" });
		writeFiles(root, { "src/a.ts": "export const a = 2;\n" });
		await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED);
		const pid = lsp.status().pid as number;
		const members = groupMembers(pid);
		expect(members.length).toBeGreaterThan(1); // the server and its tsserver processes
		await lsp.shutdown();
		expect(groupMembers(pid)).toEqual([]);
		expect(lsp.status().state).toBe("cold");
	});

	it("shuts an idle server down after lsp.idleMs and starts it again when needed", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a = 1;\n" });
		writeFiles(root, { "src/a.ts": "export const a = 2;\n" });
		await lsp.check(["src/a.ts"], { ...SETTINGS, idleMs: 300 }, UNTRUSTED);
		const pid = lsp.status().pid as number;
		await until(
			"the idle server to stop",
			() => lsp.status().state === "cold" && groupMembers(pid).length === 0,
			10_000,
		);
		expect(groupMembers(pid)).toEqual([]);
		expect(lsp.status().state).toBe("cold");
		writeFiles(root, { "src/a.ts": 'export const a: number = "x";\n' });
		expect((await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED)).findings).toHaveLength(1);
		expect(lsp.status().state).toBe("warm");
	});
});
