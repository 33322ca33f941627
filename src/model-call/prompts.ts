// Model prompts live in prompts/*.md (data, not Pi prompt templates); read once per process.
import { readFileSync } from "node:fs";

const cache = new Map<string, string>();

export function loadPrompt(name: string): string {
	let text = cache.get(name);
	if (text === undefined) {
		text = readFileSync(new URL(`../../prompts/${name}.md`, import.meta.url), "utf8").trim();
		cache.set(name, text);
	}
	return text;
}
