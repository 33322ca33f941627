// The shape DESIGN.md asks for, kept true by a test: no import cycle between the folders of
// src/ nor between its files, other folders reached only through their index.ts, no source
// file over 400 lines nor line over 120 columns, and src/extension.ts only registering Pi's events.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../src");

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
	);
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

/** Each file's imports of other files of src/ (type-only imports too: they tie the files as much). */
function fileImports(): Map<string, string[]> {
	const all = sources(SRC);
	const known = new Set(all);
	return new Map(
		all.map((file) => {
			const specs = [...readFileSync(file, "utf8").matchAll(/from "(\.[^"]+)"/g)];
			const targets = specs.map(([, spec]) => normalize(join(dirname(file), spec)));
			return [file, targets.filter((target) => known.has(target))];
		}),
	);
}

/** The groups of files that import each other round in a circle (Tarjan's strongly connected components). */
function importCycles(edges: Map<string, string[]>): string[][] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const cycles: string[][] = [];
	const visit = (file: string) => {
		index.set(file, index.size);
		low.set(file, index.get(file) as number);
		stack.push(file);
		onStack.add(file);
		for (const next of edges.get(file) ?? []) {
			if (!index.has(next)) {
				visit(next);
				low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
			} else if (onStack.has(next)) {
				low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
			}
		}
		if (low.get(file) !== index.get(file)) return;
		const group: string[] = [];
		let member: string | undefined;
		do {
			member = stack.pop() as string;
			onStack.delete(member);
			group.push(relative(SRC, member));
		} while (member !== file);
		if (group.length > 1 || edges.get(file)?.includes(file)) cycles.push(group.sort());
	};
	for (const file of edges.keys()) if (!index.has(file)) visit(file);
	return cycles;
}

it("has no import cycle between the files of src/", () => {
	expect(importCycles(fileImports())).toEqual([]);
});

it("finds an import cycle when there is one (the check above can fail)", () => {
	const a = join(SRC, "a.ts");
	const b = join(SRC, "b.ts");
	const c = join(SRC, "c.ts");
	expect(
		importCycles(
			new Map([
				[a, [b]],
				[b, [c]],
				[c, [a]],
			]),
		),
	).toEqual([["a.ts", "b.ts", "c.ts"]]);
	expect(
		importCycles(
			new Map([
				[a, [b]],
				[b, [c]],
				[c, []],
			]),
		),
	).toEqual([]);
});

it("keeps every line of src/ within 120 columns (a tab counts 2, as the formatter counts it)", () => {
	const long = [...sources(SRC), join(SRC, "../index.ts")].flatMap((file) =>
		readFileSync(file, "utf8")
			.split("\n")
			.map((line, i) => ({ at: `${relative(SRC, file)}:${i + 1}`, columns: line.replace(/\t/g, "  ").length }))
			.filter((l) => l.columns > 120)
			.map((l) => l.at),
	);
	expect(long).toEqual([]);
});

it("imports another folder only through its index.ts, which says what the folder offers", () => {
	const around: string[] = [];
	for (const file of sources(SRC)) {
		for (const [, spec] of readFileSync(file, "utf8").matchAll(/from "(\.[^"]+)"/g)) {
			const target = normalize(join(dirname(file), spec));
			if (folderOf(target) !== folderOf(file) && folderOf(target) !== "(root)" && !target.endsWith("/index.ts"))
				around.push(`${relative(SRC, file)} → ${spec}`);
		}
	}
	expect(around).toEqual([]);
	const folders = readdirSync(SRC, { withFileTypes: true })
		.filter((e) => e.isDirectory())
		.map((e) => e.name);
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
