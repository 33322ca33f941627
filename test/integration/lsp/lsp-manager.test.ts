// The LSP pre-pass against the real typescript-language-server (the one this package depends
// on, or a repository's own in a trusted project) and real TypeScript projects in temp folders.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SERVER_MEMORY_MB } from "../../../src/lsp/index.ts";
import { LspManager } from "../../../src/lsp/lsp-manager.ts";
import { OPEN_DOCUMENTS, OPEN_DOCUMENTS_MAX } from "../../../src/lsp/lsp-server.ts";
import { groupMembers } from "../../../src/lsp/process-tree.ts";
import { nodeOptionsWith, SERVER_NODE_FLAGS, SERVER_PRELOAD } from "../../../src/lsp/server-heap.ts";
import { running } from "../../support/processes.ts";
import { until } from "../../support/subagent-cli.ts";
import { makeGitRepo, writeFiles } from "../../support/git.ts";
import { tempDir } from "../../support/temp.ts";

const SETTINGS = { timeoutMs: 20_000, maxFiles: 20, idleMs: 60_000 };
const TSCONFIG = JSON.stringify({
	compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler" },
	include: ["src"],
});
const TRUSTED = true;
const UNTRUSTED = false;
const managers: LspManager[] = [];
afterEach(async () => {
	for (const m of managers.splice(0)) await m.shutdown();
});

function project(files: Record<string, string>): { root: string; lsp: LspManager } {
	const root = makeGitRepo({ "tsconfig.json": TSCONFIG, ...files });
	const lsp = new LspManager(root);
	managers.push(lsp);
	return { root, lsp };
}

describe("LSP pre-pass", () => {
	it("reports a type error in a changed file and one in its importer as blockers with file:line:col", async () => {
		const { root, lsp } = project({
			"src/shape.ts": "export interface Shape { width: number }\nexport const unit: Shape = { width: 1 };\n",
			"src/area.ts": 'import { unit } from "./shape";\nexport const area: number = unit.width * 2;\n',
			"src/other.ts": "export const untouched = 1;\n",
		});
		writeFiles(root, {
			"src/shape.ts": "export interface Shape { width: string }\nexport const unit: Shape = { width: 1 };\n",
		});
		const result = await lsp.check(["src/shape.ts"], SETTINGS, UNTRUSTED);
		expect(result.checked).toEqual(["src/shape.ts", "src/area.ts"]);
		const summaries = result.findings.map((f) => f.summary);
		expect(summaries).toEqual(
			expect.arrayContaining([
				expect.stringMatching(/^Type error at src\/shape\.ts:2:30: Type 'number' is not assignable to type 'string'/),
				expect.stringMatching(/^Type error at src\/area\.ts:2:29: The left-hand side of an arithmetic operation/),
			]),
		);
		for (const f of result.findings)
			expect(f).toMatchObject({ severity: "blocker", importance: "high", source: "lsp", category: "correctness" });
		expect(result.signal).toMatch(
			/^LSP \(typescript-language-server\), 2 file\(s\) checked:\nerror src\/shape\.ts:2:30 TS2322/,
		);
		const status = lsp.status();
		expect(status.state).toBe("warm");
		expect(status.server?.version).toMatch(/^\d+\.\d+\.\d+$/);
		expect(status.filesChecked).toBe(2);
		expect(status.rssKb).toBeGreaterThan(10_000);
	});

	it("raises only new diagnostics, clears a fixed file, and raises a returning error again", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a: number = 1;\n" });
		writeFiles(root, { "src/a.ts": 'export const a: number = "one";\n' });
		expect((await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED)).findings).toHaveLength(1);
		writeFiles(root, { "src/a.ts": 'export const a: number = "one";\nexport const b = 2;\n' });
		const again = await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED);
		expect(again.findings).toEqual([]); // the same error, moved or not, is not raised twice
		expect(again.diagnostics).toHaveLength(1); // but the reviewer still sees it
		writeFiles(root, { "src/a.ts": "export const a: number = 1;\n" });
		const fixed = await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED);
		expect(fixed.findings).toEqual([]);
		expect(fixed.diagnostics).toEqual([]);
		expect(lsp.status().lastResult).toMatch(/^0 error\(s\), 0 warning\(s\) in 1 file\(s\)/);
		writeFiles(root, { "src/a.ts": 'export const a: number = "one";\n' });
		expect((await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED)).findings).toHaveLength(1);
	});

	it("keeps information and hints in status only, and ignores files it does not check", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a = 1;\n", "README.md": "# r\n" });
		writeFiles(root, {
			"src/a.ts": "export function f() { const unused = 1; return 2; }\n",
			"README.md": "# changed\n",
		});
		const result = await lsp.check(["src/a.ts", "README.md"], SETTINGS, UNTRUSTED);
		expect(result.findings).toEqual([]);
		expect(result.checked).toEqual(["src/a.ts"]);
		// Hints never hold the check up: they are counted when the server's answer comes.
		await vi.waitFor(() => expect(lsp.status().hints).toBeGreaterThan(0), { timeout: 10_000 });
		expect(await lsp.check(["README.md"], SETTINGS, UNTRUSTED)).toMatchObject({
			checked: [],
			findings: [],
			skipped: "no changed TypeScript or JavaScript file to check",
		});
	});

	it("skips a changed file the agent turned into a FIFO instead of waiting on it", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a = 1;\n", "src/b.ts": "export const b = 2;\n" });
		rmSync(join(root, "src/a.ts"));
		execFileSync("mkfifo", [join(root, "src/a.ts")]);
		writeFiles(root, { "src/b.ts": "export const b: number = 'two';\n" });
		const result = await lsp.check(["src/a.ts", "src/b.ts"], SETTINGS, UNTRUSTED);
		expect(result.checked).toEqual(["src/b.ts"]);
		expect(result.findings).toHaveLength(1);
	});

	it("uses the repository's own server first in a trusted project", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a = 1;\n" });
		mkdirSync(join(root, "node_modules", ".bin"), { recursive: true });
		symlinkSync(
			resolve("node_modules/.bin/typescript-language-server"),
			join(root, "node_modules", ".bin", "typescript-language-server"),
		);
		writeFiles(root, { "src/a.ts": "export const a = 2;\n" });
		await lsp.check(["src/a.ts"], SETTINGS, TRUSTED);
		expect(lsp.status().server).toMatchObject({
			from: "repository",
			path: join(root, "node_modules", ".bin", "typescript-language-server"),
			why: "the project is trusted and has its own node_modules/.bin server",
		});
		// It runs on whatever node it finds: the heap preload is for the bundled server only.
		for (const member of groupMembers(lsp.status().pid as number))
			expect(readFileSync(`/proc/${member.pid}/environ`, "utf8")).not.toContain(SERVER_PRELOAD as string);
	});
});

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

describe("warnings", () => {
	it("reports a warning (here from a real tsserver plugin, in a trusted project's own TypeScript) as a concern of medium importance", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a = 1;\n" });
		// tsserver only loads plugins next to the TypeScript it runs, so the project gets its own copy.
		cpSync(resolve("node_modules/typescript"), join(root, "node_modules", "typescript"), { recursive: true });
		writeFiles(root, {
			"node_modules/todo-warnings/package.json": JSON.stringify({ name: "todo-warnings", main: "index.js" }),
			"node_modules/todo-warnings/index.js": `module.exports = () => ({
	create(info) {
		const ls = info.languageService;
		const proxy = Object.create(null);
		for (const k of Object.keys(ls)) proxy[k] = (...args) => ls[k](...args);
		proxy.getSemanticDiagnostics = (fileName) => {
			const found = ls.getSemanticDiagnostics(fileName);
			const file = ls.getProgram().getSourceFile(fileName);
			const at = file ? file.text.indexOf("TODO") : -1;
			if (at >= 0) found.push({ file, start: at, length: 4, messageText: "A TODO was left in the code", category: 0, code: 90001 });
			return found;
		};
		return proxy;
	},
});`,
			"tsconfig.json": JSON.stringify({
				compilerOptions: { strict: true, noEmit: true, plugins: [{ name: "todo-warnings" }] },
				include: ["src"],
			}),
		});
		writeFiles(root, { "src/a.ts": "// TODO: remove\nexport const a = 1;\n" });
		const result = await lsp.check(["src/a.ts"], SETTINGS, TRUSTED);
		expect(result.findings).toHaveLength(1);
		expect(result.findings[0]).toMatchObject({
			severity: "concern",
			importance: "medium",
			summary: "Warning at src/a.ts:1:4: A TODO was left in the code",
		});
		expect(lsp.status().typescript).toMatchObject({
			from: "workspace",
			why: "the project is trusted and has its own TypeScript",
		});
	});
});

describe("edits as they happen", () => {
	it("checks a burst of edits once after a quiet time, and the check at the end reuses those answers", async () => {
		const { root, lsp } = project({
			"src/a.ts": "export const a: number = 1;\n",
			"src/b.ts": 'import { a } from "./a";\nexport const b: number = a;\n',
			"src/c.ts": "export const c = 1;\n",
		});
		await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED); // starts the server
		writeFiles(root, {
			"src/a.ts": 'export const a: string = "two";\n',
			"src/c.ts": 'export const c: number = "three";\n',
		});
		lsp.prefetch(["src/a.ts"], SETTINGS);
		lsp.prefetch(["src/c.ts"], SETTINGS);
		// Asked once, after the burst: importers of both, then errors and hints of a, b and c.
		await vi.waitFor(() => expect(lsp.status().requests).toBeGreaterThanOrEqual(2 + 3 * 3), { timeout: 10_000 });
		await new Promise((r) => setTimeout(r, 300));
		const asked = lsp.status().requests ?? 0;
		const result = await lsp.check(["src/a.ts", "src/c.ts"], SETTINGS, UNTRUSTED);
		expect(lsp.status().requests).toBe(asked); // every answer was ready
		expect(result.checked.sort()).toEqual(["src/a.ts", "src/b.ts", "src/c.ts"]);
		expect(result.findings.map((f) => f.summary).sort()).toEqual([
			expect.stringMatching(/^Type error at src\/b\.ts:2:14/),
			expect.stringMatching(/^Type error at src\/c\.ts:1:14/),
		]);
	});

	it("never answers from what it asked before a later change", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a: number = 1;\n" });
		await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED);
		writeFiles(root, { "src/a.ts": "export const a: number = 2;\n" });
		lsp.prefetch(["src/a.ts"], SETTINGS);
		await new Promise((r) => setTimeout(r, 500));
		// Changed again with no prefetch (a bash call, say): the check must see the new text.
		writeFiles(root, { "src/a.ts": 'export const a: number = "three";\n' });
		const result = await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED);
		expect(result.findings.map((f) => f.summary)).toEqual([expect.stringMatching(/^Type error at src\/a\.ts:1:14/)]);
	});

	it("hands a warm server each edit at once, and never starts a server for it", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a: number = 1;\n" });
		writeFiles(root, { "src/a.ts": "export const a: number = 2;\n" });
		lsp.prefetch(["src/a.ts"], SETTINGS);
		expect(lsp.status().state).toBe("not started");
		await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED);
		writeFiles(root, { "src/a.ts": 'export const a: number = "three";\n' });
		lsp.prefetch([join(root, "src/a.ts"), "README.md", "/elsewhere/x.ts"], SETTINGS);
		const result = await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED);
		expect(result.findings.map((f) => f.summary)).toEqual([expect.stringMatching(/^Type error at src\/a\.ts:1:14/)]);
	});
});

// Over a long session: what stays open is bounded however many files were checked, and which
// files import a file is asked again only when some file's imports changed.
describe("LSP pre-pass over a long session", () => {
	it("closes the oldest documents with the next change, and still finds an error in one of them", async () => {
		const count = OPEN_DOCUMENTS + 10;
		const name = (i: number) => `src/f${i}.ts`;
		const files: Record<string, string> = {};
		for (let i = 0; i < count; i++) files[name(i)] = `export const value${i}: number = ${i};\n`;
		const { root, lsp } = project(files);
		for (let i = 0; i < count; i++) {
			writeFiles(root, { [name(i)]: `export const value${i}: number = ${i + 1};\n` });
			const result = await lsp.check([name(i)], SETTINGS, UNTRUSTED);
			expect(result.checked).toEqual([name(i)]);
			expect(result.findings).toEqual([]);
		}
		// Only opened so far: closing now would make the server build its program once more.
		expect(lsp.status().openDocuments).toBe(count);
		// A change to an open file: the oldest documents close with it.
		const last = name(count - 1);
		writeFiles(root, { [last]: `export const value${count - 1}: number = 0;\n` });
		await lsp.check([last], SETTINGS, UNTRUSTED);
		expect(lsp.status().openDocuments).toBe(OPEN_DOCUMENTS);
		// The first file was closed: an error put there is found as before.
		writeFiles(root, { [name(0)]: 'export const value0: number = "zero";\n' });
		const again = await lsp.check([name(0)], SETTINGS, UNTRUSTED);
		expect(again.findings.map((f) => f.summary)).toEqual([
			expect.stringMatching(/^Type error at src\/f0\.ts:1:14: Type 'string' is not assignable to type 'number'/),
		]);
	});

	it("closes the oldest documents after a check when more than its bound are open and no change came", async () => {
		const count = OPEN_DOCUMENTS_MAX + 5;
		const name = (i: number) => `src/g${i}.ts`;
		const files: Record<string, string> = {};
		for (let i = 0; i < count; i++) files[name(i)] = `export const value${i}: number = ${i};\n`;
		const { root, lsp } = project(files);
		let most = 0;
		for (let i = 0; i < count; i++) {
			writeFiles(root, { [name(i)]: `export const value${i}: number = ${i + 1};\n` });
			await lsp.check([name(i)], SETTINGS, UNTRUSTED);
			await vi.waitFor(() => expect(lsp.status().openDocuments).toBeLessThanOrEqual(OPEN_DOCUMENTS_MAX), {
				timeout: 10_000,
			});
			most = Math.max(most, lsp.status().openDocuments ?? 0);
		}
		expect(most).toBe(OPEN_DOCUMENTS_MAX);
		expect(lsp.status().openDocuments).toBeLessThan(OPEN_DOCUMENTS_MAX);
	});

	it("limits tsserver's heap to lsp.serverMemoryMb, and starts a new server when the setting changes", async () => {
		const { root, lsp } = project({ "src/a.ts": "export const a: number = 1;\n" });
		const heapFlags = () =>
			groupMembers(lsp.status().pid as number).flatMap((p) =>
				readFileSync(`/proc/${p.pid}/cmdline`, "utf8")
					.split("\0")
					.filter((arg) => arg.startsWith("--max-old-space-size")),
			);
		await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED);
		await vi.waitFor(() => expect(heapFlags()).toEqual([`--max-old-space-size=${SERVER_MEMORY_MB}`]), {
			timeout: 10_000,
		});
		const first = lsp.status().pid;
		writeFiles(root, { "src/a.ts": 'export const a: number = "one";\n' });
		const result = await lsp.check(["src/a.ts"], { ...SETTINGS, serverMemoryMb: 0 }, UNTRUSTED);
		expect(result.findings).toHaveLength(1);
		expect(lsp.status().pid).not.toBe(first);
		await vi.waitFor(() => expect(groupMembers(lsp.status().pid as number).length).toBeGreaterThan(1), {
			timeout: 10_000,
		});
		expect(heapFlags()).toEqual([]);
	});

	it("hands the bundled server and its tsserver the heap preload, after the user's NODE_OPTIONS", async () => {
		const { lsp } = project({ "src/a.ts": "export const a: number = 1;\n" });
		await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED);
		const pid = lsp.status().pid as number;
		await vi.waitFor(() => expect(groupMembers(pid).length).toBeGreaterThan(1), { timeout: 10_000 });
		const environ = (p: number) => readFileSync(`/proc/${p}/environ`, "utf8").split("\0");
		const cmdline = (p: number) => readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0");
		expect(SERVER_PRELOAD).toMatch(/tsserver-preload\.cjs$/); // the file ships with the package
		const expected = `NODE_OPTIONS=${nodeOptionsWith(process.env.NODE_OPTIONS, SERVER_PRELOAD as string)}`;
		for (const member of groupMembers(pid)) expect(environ(member.pid)).toContain(expected);
		expect(cmdline(pid)).toEqual(expect.arrayContaining(SERVER_NODE_FLAGS));
		const tsserver = groupMembers(pid).find((p) => p.pid !== pid) as { pid: number };
		expect(cmdline(tsserver.pid).some((arg) => SERVER_NODE_FLAGS.includes(arg))).toBe(false);
	});

	it("asks which files import a file again only after some file's imports changed", async () => {
		const { root, lsp } = project({
			"src/a.ts": "export const a: number = 1;\n",
			"src/b.ts": 'import { a } from "./a";\nexport const b: number = a + 1;\n',
			"src/c.ts": "export const c = 3;\n",
		});
		const checkA = async (text: string) => {
			writeFiles(root, { "src/a.ts": text });
			const before = lsp.status().requests ?? 0;
			const result = await lsp.check(["src/a.ts"], SETTINGS, UNTRUSTED);
			expect(result.checked).toEqual(["src/a.ts", "src/b.ts"]);
			return (lsp.status().requests ?? 0) - before;
		};
		await checkA("export const a: number = 2;\n");
		const bodyOnly = await checkA("export const a: number = 3;\n");
		const newImport = await checkA('import "./c";\nexport const a: number = 4;\n');
		// The same questions each time (errors and hints of both files), and the importers once more.
		expect(newImport).toBe(bodyOnly + 1);
		const bodyAgain = await checkA('import "./c";\nexport const a: number = 5;\n');
		expect(bodyAgain).toBe(bodyOnly);
	});
});
