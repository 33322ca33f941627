// The bundle's loader loads CommonJS files as Node would: its own file and folder, one module per file, relative
// chunks through itself, errors thrown. What it does with caches across processes: test/integration/util/.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CacheUse, LOAD_CHANNEL, newLoad, requireCompiled } from "../../../src/util/code-cache.ts";
import { tempDir } from "../../support/temp.ts";

function bundle(): { dist: string; entry: string; chunk: string } {
	const dist = join(tempDir("pi-watchdog-code-cache-"), "dist");
	mkdirSync(join(dist, "chunks"), { recursive: true });
	const entry = join(dist, "entry.cjs");
	const chunk = join(dist, "chunks", "core-abc.cjs");
	writeFileSync(
		entry,
		[
			'const path = require("node:path");',
			"exports.file = __filename;",
			"exports.dir = path.basename(__dirname);",
			'exports.core = () => require("./chunks/core-abc.cjs");',
			'exports.same = () => require("./chunks/core-abc.cjs") === require("./chunks/core-abc.cjs");',
			"exports.line = () => new Error('where').stack.split('\\n')[1];",
		].join("\n"),
	);
	writeFileSync(
		chunk,
		"let loads = (globalThis.__coreLoads ?? 0) + 1;\nglobalThis.__coreLoads = loads;\nexports.twice = (n) => n * 2;\n",
	);
	return { dist, entry, chunk };
}

const seen: Array<{ file: string; cache: CacheUse }> = [];
const watch = (message: unknown) => seen.push(message as { file: string; cache: CacheUse });
beforeEach(() => {
	seen.length = 0;
	subscribe(LOAD_CHANNEL, watch);
});
afterEach(() => unsubscribe(LOAD_CHANNEL, watch));

describe("requireCompiled", () => {
	it("loads as Node would: its own file and folder, relative chunks through itself, one module per file", () => {
		const { dist, entry, chunk } = bundle();
		const loaded = requireCompiled(entry, newLoad(dist, undefined)) as Record<string, () => unknown>;
		expect(loaded.file).toBe(entry);
		expect(loaded.dir).toBe("dist");
		expect((loaded.core() as { twice: (n: number) => number }).twice(21)).toBe(42);
		expect(loaded.same()).toBe(true);
		// The file's own line numbers, not the wrapper's.
		expect(loaded.line()).toContain(`${entry}:6:`);
		expect(seen).toEqual([
			{ file: entry, cache: "off", settled: false },
			{ file: chunk, cache: "off", settled: false },
		]);
	});

	it("throws what the file throws, and a later load evaluates it anew", () => {
		const { dist, entry } = bundle();
		writeFileSync(entry, 'throw new Error("broken bundle");\n');
		expect(() => requireCompiled(entry, newLoad(dist, undefined))).toThrow("broken bundle");
		writeFileSync(entry, "exports.ok = true;\n");
		expect(requireCompiled(entry, newLoad(dist, undefined))).toEqual({ ok: true });
	});
});
