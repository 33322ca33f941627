// Which committed doc holds which generated block, and writing them (`npm run docs`); the unit
// test compares the committed docs with what this would write.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_DIR } from "../util/index.ts";
import { replaceBlock } from "./markdown.ts";
import { settingsReference } from "./settings-reference.ts";
import { toolReference } from "./tool-reference.ts";

const BLOCKS: Array<{ file: string; block: string; body: () => string }> = [
	{ file: "docs/settings.md", block: "settings reference", body: settingsReference },
	{ file: "docs/subagent-tool.md", block: "subagent tool reference", body: toolReference },
];

/** Each generated doc as committed and as the generator would write it now. */
export function generatedDocs(root = PACKAGE_DIR): Array<{ file: string; committed: string; generated: string }> {
	const docs = new Map<string, { committed: string; generated: string }>();
	for (const { file, block, body } of BLOCKS) {
		const doc = docs.get(file) ?? { committed: readFileSync(join(root, file), "utf8"), generated: "" };
		doc.generated = replaceBlock(doc.generated || doc.committed, block, body());
		docs.set(file, doc);
	}
	return [...docs].map(([file, doc]) => ({ file, ...doc }));
}

/** Writes every generated doc that differs; returns the files written. */
export function writeGeneratedDocs(root = PACKAGE_DIR): string[] {
	const changed = generatedDocs(root).filter((doc) => doc.committed !== doc.generated);
	for (const doc of changed) writeFileSync(join(root, doc.file), doc.generated);
	return changed.map((doc) => doc.file);
}
