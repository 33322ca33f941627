// The LSP pre-pass over a long session, against the real typescript-language-server: what stays
// open is bounded however many files were checked, tsserver's heap and node flags are as set, and
// which files import a file is asked again only when some file's imports changed.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SERVER_MEMORY_MB } from "../../../src/lsp/index.ts";
import { OPEN_DOCUMENTS, OPEN_DOCUMENTS_MAX } from "../../../src/lsp/lsp-server.ts";
import { groupMembers } from "../../../src/lsp/process-tree.ts";
import { nodeOptionsWith, SERVER_NODE_FLAGS, SERVER_PRELOAD } from "../../../src/lsp/server-heap.ts";
import { writeFiles } from "../../support/git.ts";
import { LSP_TEST_SETTINGS as SETTINGS, project, shutDownManagers, UNTRUSTED } from "./lsp-fixtures.ts";

afterEach(shutDownManagers);

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
