// The shape DESIGN.md asks for, kept true by a test: no import cycle between the folders of
// src/, other folders reached only through their index.ts, no source file over 400 lines, and
// src/extension.ts only registering Pi's events.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../src");

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

const folderOf = (file: string) => relative(SRC, file).split("/").slice(0, -1)[0] ?? "(root)";

it("has no import cycle between the folders of src/", () => {
	const edges = new Map<string, Set<string>>();
	for (const file of sources(SRC)) {
		for (const [, spec] of readFileSync(file, "utf8").matchAll(/from "(\.[^"]+)"/g)) {
			const from = folderOf(file);
			const to = folderOf(normalize(join(dirname(file), spec)));
			if (from !== to) edges.set(from, new Set([...(edges.get(from) ?? []), to]));
		}
	}
	const cycles: string[] = [];
	const state = new Map<string, "open" | "done">();
	const visit = (folder: string, path: string[]) => {
		state.set(folder, "open");
		for (const next of edges.get(folder) ?? []) {
			if (state.get(next) === "open") cycles.push([...path.slice(path.indexOf(next)), next].join(" → "));
			else if (!state.has(next)) visit(next, [...path, next]);
		}
		state.set(folder, "done");
	};
	for (const folder of edges.keys()) if (!state.has(folder)) visit(folder, [folder]);
	expect(cycles).toEqual([]);
});

it("imports another folder only through its index.ts, which says what the folder offers", () => {
	const around: string[] = [];
	for (const file of sources(SRC)) {
		for (const [, spec] of readFileSync(file, "utf8").matchAll(/from "(\.[^"]+)"/g)) {
			const target = normalize(join(dirname(file), spec));
			if (folderOf(target) !== folderOf(file) && folderOf(target) !== "(root)" && !target.endsWith("/index.ts")) around.push(`${relative(SRC, file)} → ${spec}`);
		}
	}
	expect(around).toEqual([]);
	const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
	for (const folder of folders) expect(readFileSync(join(SRC, folder, "index.ts"), "utf8")).toMatch(/^\/\/ /);
});

it("keeps every source file under 400 lines", () => {
	const long = sources(SRC)
		.map((file) => ({ file: relative(SRC, file), lines: readFileSync(file, "utf8").split("\n").length }))
		.filter((f) => f.lines > 400);
	expect(long).toEqual([]);
});

it("keeps src/extension.ts to registering Pi's events", () => {
	const text = readFileSync(join(SRC, "extension.ts"), "utf8");
	// No class or helper of its own; the events go to the session's watchdog.
	expect(text).not.toMatch(/\bclass\s|^function\s/m);
	expect(text).toMatch(/new WatchdogSession\(/);
});
