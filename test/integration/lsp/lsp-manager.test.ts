// The LSP pre-pass against the real typescript-language-server (the one this package depends
// on, or a repository's own in a trusted project) and real TypeScript projects in temp folders:
// what it reports, warnings from a tsserver plugin, and edits handed over as they happen.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { groupMembers } from "../../../src/lsp/process-tree.ts";
import { SERVER_PRELOAD } from "../../../src/lsp/server-heap.ts";
import { writeFiles } from "../../support/git.ts";
import { LSP_TEST_SETTINGS as SETTINGS, project, shutDownManagers, TRUSTED, UNTRUSTED } from "./lsp-fixtures.ts";

afterEach(shutDownManagers);

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
