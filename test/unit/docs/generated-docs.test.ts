// The docs generated from the code are committed as the generator writes them: a setting or a
// tool parameter added, removed or changed without `npm run docs` fails here.
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedDocs, settingRows, writeGeneratedDocs } from "../../../src/docs/index.ts";

describe("the generated docs", () => {
	it("are committed exactly as `npm run docs` writes them", () => {
		const docs = generatedDocs();
		expect(docs.map((d) => d.file).sort()).toEqual(["docs/settings.md", "docs/subagent-tool.md"]);
		for (const doc of docs) expect(doc.committed, `${doc.file} is stale: run npm run docs`).toBe(doc.generated);
	});

	it("notice a hand edit inside a generated block, and the generator puts it back", () => {
		const root = mkdtempSync(join(tmpdir(), "pi-watchdog-docs-"));
		mkdirSync(join(root, "docs"));
		for (const doc of generatedDocs()) writeFileSync(join(root, doc.file), doc.generated);
		const settings = join(root, "docs/settings.md");
		writeFileSync(settings, readFileSync(settings, "utf8").replace("| `lsp.idleMs`", "| `lsp.idleMillis`"));
		expect(
			generatedDocs(root)
				.filter((d) => d.committed !== d.generated)
				.map((d) => d.file),
		).toEqual(["docs/settings.md"]);
		expect(writeGeneratedDocs(root)).toEqual(["docs/settings.md"]);
		expect(readFileSync(settings, "utf8")).toContain("| `lsp.idleMs`");
	});
});

describe("the settings reference", () => {
	const rows = new Map(settingRows().map((r) => [r.key.replaceAll("`", ""), r]));

	it("has every key of the schema, role maps included, each with a meaning", () => {
		for (const key of ["enabled", "main.model", "lsp.idleMs", "children.overrides.<role>.model", "history.maxBytes"])
			expect(rows.has(key), key).toBe(true);
		for (const [key, row] of rows) expect(row.meaning.length, key).toBeGreaterThan(5);
	});

	it("reads type, default and who may set it from the code", () => {
		expect(rows.get("lsp.maxFiles")).toMatchObject({
			type: "whole number, at least 1, at most 500",
			default: "`20`",
			who: "you; project: only higher",
		});
		expect(rows.get("severityThreshold")).toMatchObject({ type: "`concern`, `blocker`", default: '`"concern"`' });
		expect(rows.get("main.model")?.who).toBe("you, per session too; agent; project: no");
		expect(rows.get("rules.roleModels.<role>.deny")?.who).toBe("you; project: added to yours");
	});
});
