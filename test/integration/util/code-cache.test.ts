// The bundle's code cache across real processes (V8 consumes a cache only in a fresh process): a process makes it
// at exit, the next one uses it; a rebuilt file makes its own and the old one goes; a cache this user did not
// write (a link, a file or folder others may write) is never read, and one V8 rejects is made anew.
import {
	chmodSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runProcess } from "../../support/run-process.ts";
import { tempDir } from "../../support/temp.ts";

const CODE_CACHE = resolve(import.meta.dirname, "../../../src/util/code-cache.ts");

function bundle(): { dist: string; entry: string; cacheDir: string; loader: string } {
	const root = tempDir("pi-watchdog-code-cache-");
	const dist = join(root, "dist");
	mkdirSync(join(dist, "chunks"), { recursive: true });
	const entry = join(dist, "entry.cjs");
	writeFileSync(entry, 'exports.answer = () => require("./chunks/core-abc.cjs").twice(21);\n');
	writeFileSync(join(dist, "chunks", "core-abc.cjs"), "exports.twice = (n) => n * 2;\n");
	// One load in its own process: each file's cache use, then the answer; caches are written at its exit.
	const loader = join(root, "load.mts");
	writeFileSync(
		loader,
		[
			'import { subscribe } from "node:diagnostics_channel";',
			`import { codeCacheSettled, LOAD_CHANNEL, newLoad, requireCompiled } from ${JSON.stringify(CODE_CACHE)};`,
			"const uses = [];",
			"subscribe(LOAD_CHANNEL, (m) => uses.push(m.settled ? 'settled' : m.cache));",
			"const [entry, dist, cacheDir, settle] = process.argv.slice(2);",
			"const loaded = requireCompiled(entry, newLoad(dist, cacheDir));",
			"if (settle) codeCacheSettled();",
			"console.log(JSON.stringify({ uses, answer: loaded.answer() }));",
		].join("\n"),
	);
	return { dist, entry, cacheDir: join(root, "cache"), loader };
}

async function load(b: ReturnType<typeof bundle>, settle = false): Promise<string[]> {
	const ran = await runProcess(
		process.execPath,
		[
			"--experimental-strip-types",
			"--no-warnings",
			b.loader,
			b.entry,
			b.dist,
			b.cacheDir,
			...(settle ? ["settle"] : []),
		],
		{ timeoutMs: 30_000 },
	);
	expect(ran.code, ran.stderr).toBe(0);
	const out = JSON.parse(ran.stdout) as { uses: string[]; answer: number };
	expect(out.answer).toBe(42);
	return out.uses;
}

const entryCache = (b: ReturnType<typeof bundle>) =>
	readdirSync(b.cacheDir).filter((f) => /^entry\.cjs\.[0-9a-z]+-/.test(f));

describe("the bundle's code cache", () => {
	it("is made at exit and used by the next process; a rebuilt file makes its own and the old one goes", async () => {
		const b = bundle();
		expect(await load(b)).toEqual(["made", "made"]);
		const made = entryCache(b);
		expect(made).toHaveLength(1);
		expect(readdirSync(b.cacheDir)).toHaveLength(2);
		expect(await load(b)).toEqual(["used", "used"]);

		writeFileSync(b.entry, `${readFileSync(b.entry, "utf8")}exports.more = 1;\n`);
		expect(await load(b)).toEqual(["made", "used"]);
		expect(entryCache(b)).toHaveLength(1);
		expect(entryCache(b)).not.toEqual(made);
		expect(await load(b)).toEqual(["used", "used"]);
	});

	it("is made again once after a settle, when the first came from a process that ran none", async () => {
		const b = bundle();
		expect(await load(b)).toEqual(["made", "made"]); // a short command: a plain cache
		expect(await load(b)).toEqual(["used", "used"]);
		const plain = entryCache(b);
		expect(plain[0]).toMatch(/\d\.v8$/);
		expect(await load(b, true)).toEqual(["used", "used"]); // a session that settled: a settled cache at exit
		const settled = entryCache(b);
		expect(settled).toHaveLength(1);
		expect(settled[0]).toMatch(/\.settled\.v8$/);
		expect(await load(b)).toEqual(["settled", "settled"]);
		const written = statSync(join(b.cacheDir, settled[0] as string)).mtimeMs;
		expect(await load(b, true)).toEqual(["settled", "settled"]); // nothing more to gain: nothing written
		expect(statSync(join(b.cacheDir, settled[0] as string)).mtimeMs).toBe(written);
		expect(readdirSync(b.cacheDir)).toHaveLength(2);
	});

	it("keeps one cache per install: two copies of the package used in turn do not replace each other's", async () => {
		const one = bundle();
		const two = { ...bundle(), cacheDir: one.cacheDir };
		expect(await load(one)).toEqual(["made", "made"]);
		expect(await load(two)).toEqual(["made", "made"]);
		expect(await load(one)).toEqual(["used", "used"]);
		expect(await load(two)).toEqual(["used", "used"]);
		expect(entryCache(one)).toHaveLength(2);
	});

	it("keeps its folder small and deletes only its own caches: the oldest past eight, and writes left an hour ago", async () => {
		const b = bundle();
		mkdirSync(b.cacheDir, { mode: 0o700 });
		const put = (name: string, ageHours: number) => {
			writeFileSync(join(b.cacheDir, name), "x", { mode: 0o600 });
			const at = new Date(Date.now() - ageHours * 3_600_000);
			utimesSync(join(b.cacheDir, name), at, at);
		};
		for (let i = 1; i <= 9; i++) put(`other-${i}.cjs.abc-1-2-3-4.v8`, i); // other-9 is the oldest
		put(".123-456-other-1.cjs.abc-1-2-3-4.v8", 2); // a write left unfinished two hours ago
		put(".124-457-other-1.cjs.abc-1-2-3-4.v8", 0); // one still under way
		put("notes.txt", 99);
		put("entry.cjs.v8", 99); // not a name of ours
		await load(b);
		const left = readdirSync(b.cacheDir).sort();
		expect(left.filter((f) => f.startsWith("other-"))).toEqual(
			["other-1", "other-2", "other-3", "other-4", "other-5", "other-6"].map((o) => `${o}.cjs.abc-1-2-3-4.v8`),
		);
		expect(left).toContain(".124-457-other-1.cjs.abc-1-2-3-4.v8");
		expect(left).not.toContain(".123-456-other-1.cjs.abc-1-2-3-4.v8");
		expect(left).toContain("notes.txt");
		expect(left).toContain("entry.cjs.v8");
		expect(entryCache(b)).toHaveLength(1);
	});

	it("never reads a cache this user did not write, and makes anew one V8 rejects", async () => {
		const b = bundle();
		await load(b);
		const path = join(b.cacheDir, entryCache(b)[0]);
		const good = readFileSync(path);

		chmodSync(path, 0o666); // others may write it
		expect((await load(b))[0]).toBe("made");
		expect((await load(b))[0]).toBe("used"); // replaced by one only we may write

		const elsewhere = join(tempDir("pi-watchdog-code-cache-link-"), "cache.v8");
		writeFileSync(elsewhere, good, { mode: 0o600 });
		rmSync(path);
		symlinkSync(elsewhere, path);
		expect((await load(b))[0]).toBe("made");
		expect((await load(b))[0]).toBe("used");

		writeFileSync(path, Buffer.alloc(good.length, 7), { mode: 0o600 }); // not a cache V8 made
		expect((await load(b))[0]).toBe("rejected");
		expect((await load(b))[0]).toBe("used");

		chmodSync(b.cacheDir, 0o777); // a folder others may write: nothing in it is read, nothing written
		const before = readdirSync(b.cacheDir).map((f) => readFileSync(join(b.cacheDir, f)).length);
		expect(await load(b)).toEqual(["made", "made"]);
		expect(readdirSync(b.cacheDir).map((f) => readFileSync(join(b.cacheDir, f)).length)).toEqual(before);
	});
});
