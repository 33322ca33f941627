// The LSP pre-pass over a long session, against the real typescript-language-server: what it
// keeps open stays bounded however many files it checked, and it asks which files import a file
// again only when some file's imports changed.
import { afterEach, describe, expect, it, vi } from "vitest";
import { LspManager } from "../../../src/lsp/lsp-manager.ts";
import { OPEN_DOCUMENTS } from "../../../src/lsp/lsp-server.ts";
import { makeGitRepo, writeFiles } from "../../support/git.ts";

const SETTINGS = { timeoutMs: 20_000, maxFiles: 20, idleMs: 60_000 };
const TSCONFIG = JSON.stringify({
	compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler" },
	include: ["src"],
});
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

describe("LSP pre-pass over a long session", () => {
	it("closes the documents of earlier checks beyond its bound, and still finds an error in one of them", async () => {
		const count = OPEN_DOCUMENTS + 10;
		const name = (i: number) => `src/f${i}.ts`;
		const files: Record<string, string> = {};
		for (let i = 0; i < count; i++) files[name(i)] = `export const value${i}: number = ${i};\n`;
		const { root, lsp } = project(files);
		for (let i = 0; i < count; i++) {
			writeFiles(root, { [name(i)]: `export const value${i}: number = ${i + 1};\n` });
			const result = await lsp.check([name(i)], SETTINGS, false);
			expect(result.checked).toEqual([name(i)]);
			expect(result.findings).toEqual([]);
		}
		await vi.waitFor(() => expect(lsp.status().openDocuments).toBeLessThanOrEqual(OPEN_DOCUMENTS), {
			timeout: 10_000,
		});
		// The first file was closed long ago: an error put there is found as before.
		writeFiles(root, { [name(0)]: 'export const value0: number = "zero";\n' });
		const again = await lsp.check([name(0)], SETTINGS, false);
		expect(again.findings.map((f) => f.summary)).toEqual([
			expect.stringMatching(/^Type error at src\/f0\.ts:1:14: Type 'string' is not assignable to type 'number'/),
		]);
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
			const result = await lsp.check(["src/a.ts"], SETTINGS, false);
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
