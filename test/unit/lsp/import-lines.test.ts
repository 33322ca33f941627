// Which part of a file decides which files it imports: an edit elsewhere keeps every file's
// importers (the warm LSP server is not asked for them again).
import { describe, expect, it } from "vitest";
import { importLines } from "../../../src/lsp/text-change.ts";

describe("importLines", () => {
	it("changes with the modules a file imports, and with nothing else", () => {
		const base = 'import { a } from "./a";\nexport * from "./b";\nconst x = 1;\n';
		expect(importLines(base)).toBe(importLines('import { a, z } from "./a";\nexport * from "./b";\nconst x = 2;\n'));
		expect(importLines(base)).not.toBe(importLines('import { a } from "./c";\nexport * from "./b";\nconst x = 1;\n'));
		expect(importLines(base)).not.toBe(importLines(`${base}import "./side";\n`));
		expect(importLines(base)).not.toBe(importLines(`${base}const m = await import("./lazy");\n`));
		expect(importLines(base)).not.toBe(importLines(`${base}const r = require('./old');\n`));
		expect(importLines(base)).not.toBe(importLines(`/// <reference path="./types.d.ts" />\n${base}`));
	});

	it("reads an import spread over lines by its module name", () => {
		const spread = (from: string) => `import {\n\tfirst,\n\tsecond,\n} from "${from}";\n`;
		expect(importLines(spread("./one"))).toBe(importLines(spread("./one").replace("second", "third")));
		expect(importLines(spread("./one"))).not.toBe(importLines(spread("./two")));
	});
});
