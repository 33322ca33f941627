// Model prompts live in prompts/*.md (data, not Pi prompt templates); read once per process.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_DIR } from "../util/index.ts";

const cache = new Map<string, string>();

export function loadPrompt(name: string): string {
	let text = cache.get(name);
	if (text === undefined) {
		text = readFileSync(join(PACKAGE_DIR, "prompts", `${name}.md`), "utf8").trim();
		cache.set(name, text);
	}
	return text;
}
