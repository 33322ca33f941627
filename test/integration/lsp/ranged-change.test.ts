// A warm server is handed each edit as the one range that changed (text-change.ts): what it then finds
// must be what a server that opened the final text finds. Edits on a file with \r\n line ends, a lone
// \r, a surrogate pair and tabs move a type error around; after each, the warm manager's diagnostics
// equal those of a new manager on the same text (positions included), and a file holding U+2028 (which
// tsserver counts as a line break) goes over whole and is checked right too.
import { afterEach, expect, it } from "vitest";
import { LspManager } from "../../../src/lsp/lsp-manager.ts";
import { makeGitRepo, writeFiles } from "../../support/git.ts";
import { LSP_TEST_SETTINGS, managers, STRICT_TSCONFIG, shutDownManagers } from "./lsp-fixtures.ts";

const SETTINGS = LSP_TEST_SETTINGS;
const TSCONFIG = STRICT_TSCONFIG;
afterEach(shutDownManagers);

const VERSIONS = [
	'// 😀 start\r\nexport const a: number = 1;\r\n\texport const s = "x";\r\nexport const b: string = "b";\r\n',
	'// 😀 start\r\nexport const a: number = "one";\r\n\texport const s = "x";\r\nexport const b: string = "b";\r\n',
	'// 😃 start\r\nexport const a: number = 1;\rexport const t = 2;\r\n\texport const s = "x";\r\nexport const b: string = 2;\r\n',
	'// 😃 start\r\n\r\nexport const a: number = 1;\rexport const t: string = 2;\r\nexport const b: string = "b";\r\n',
	"const s = 'a\u2028b';\nexport const a: number = 1;\nexport const b: string = 3;\n",
	"const s = 'a\u2028b';\nexport const a: number = '1';\nexport const b: string = 3;\n",
];

// Seven cold server starts: 23 s in a full suite run, 57 s on a 2-core machine at load 6, where the default
// limit is 60 s.
it("finds after ranged edits exactly what a server that opened the final text finds", async () => {
	const root = makeGitRepo({ "tsconfig.json": TSCONFIG, "src/a.ts": VERSIONS[0] });
	const warm = new LspManager(root);
	managers.push(warm);
	await warm.check(["src/a.ts"], SETTINGS, false);
	for (const [i, text] of VERSIONS.entries()) {
		writeFiles(root, { "src/a.ts": text });
		const seen = await warm.check(["src/a.ts"], SETTINGS, false);
		const fresh = new LspManager(root);
		managers.push(fresh);
		const opened = await fresh.check(["src/a.ts"], SETTINGS, false);
		await fresh.shutdown();
		expect(seen.diagnostics, `version ${i}`).toEqual(opened.diagnostics);
		if (i > 0) expect(seen.diagnostics.length, `version ${i}`).toBeGreaterThan(0);
	}
}, 180_000);
