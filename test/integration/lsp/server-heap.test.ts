// The bundled language server's heap preload: NODE_OPTIONS carries it to every Node process the server
// starts (whatever its path), after what the user set there; it keeps a heap that churns through garbage
// near its live size, where V8's own choice lets it grow to several times that; and a process that goes
// idle gives its garbage's pages back within seconds, never while it works.
import { execFile, execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { nodeOptionsWith, SERVER_PRELOAD } from "../../../src/lsp/server-heap.ts";
import { tempDir } from "../../support/temp.ts";

const execFileAsync = promisify(execFile);

/** Runs `code` in a new Node with this NODE_OPTIONS; what it prints. */
function node(nodeOptions: string | undefined, code: string, env: NodeJS.ProcessEnv = {}): string {
	const { NODE_OPTIONS: _, ...rest } = process.env;
	return execFileSync(process.execPath, ["-e", code], {
		encoding: "utf8",
		env: { ...rest, ...env, ...(nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions }) },
	});
}

// A live set, then rounds of garbage that survives long enough to reach the old generation: the peak
// size of the old generation over the live size it ends with.
const CHURN = `
const v8 = require("node:v8");
const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "old_space");
const live = [];
for (let i = 0; i < 100000; i++) live.push({ i, s: "live-" + i, a: [i, i + 1, i + 2] });
let peak = 0;
for (let round = 0; round < 40; round++) {
	const garbage = [];
	for (let i = 0; i < 50000; i++) garbage.push({ i, s: "g-" + round + "-" + i, a: [i, round] });
	peak = Math.max(peak, old().space_size);
}
console.log(JSON.stringify({ peak, live: live.length }));
`;

// Garbage made, then 3 s of work that allocates nothing, then 5 s idle: when the work ran, and the resident
// memory after the work and at the end. Run under --trace-gc, which names each collection's reason: the
// preload's gc() is "testing", so V8's own collections (its memory reducer may start one at any time) are told
// apart from ours.
const WORK_THEN_IDLE = `
const live = [];
for (let i = 0; i < 200000; i++) live.push({ i, s: "live-" + i });
let garbage = [];
for (let r = 0; r < 20; r++) { garbage = []; for (let i = 0; i < 100000; i++) garbage.push({ r, i, s: "g-" + i }); }
garbage = null;
setTimeout(() => {
	const workStart = performance.now();
	let x = 0;
	(function work() {
		const t = performance.now();
		while (performance.now() - t < 50) x++;
		if (performance.now() - workStart < 3000) return setImmediate(work);
		const workEnd = performance.now();
		const worked = process.memoryUsage.rss();
		setTimeout(() => {
			const idle = process.memoryUsage.rss();
			console.log(JSON.stringify({ workStart, workEnd, worked, idle, live: live.length }));
		}, 5000);
	})();
}, 300);
`;

/** A full collection from --trace-gc's output: when (ms since the isolate started) and why. */
type Collection = { at: number; reason: string };

/** The full collections in --trace-gc's lines, and the program's own last line, parsed. */
function traced<T>(stdout: string): { collections: Collection[]; result: T } {
	const lines = stdout.trim().split("\n");
	const collections = lines.flatMap((line) => {
		const m = /^\[\d+:0x[0-9a-f]+\]\s+(\d+) ms: Mark-Compact.*?\)\s+([a-z][^;]*);/.exec(line);
		return m ? [{ at: Number(m[1]), reason: m[2] as string }] : [];
	});
	return { collections, result: JSON.parse(lines.at(-1) as string) as T };
}

describe("the language server's heap preload", () => {
	it("reaches a Node process from a path with spaces, quotes and backslashes, after the user's own --require", () => {
		const dir = tempDir();
		const out = join(dir, "order.txt");
		const user = join(dir, "user.cjs");
		const ours = join(dir, 'our "pre\\load" file.cjs');
		writeFileSync(user, 'require("node:fs").appendFileSync(process.env.OUT, "user\\n");');
		writeFileSync(ours, 'require("node:fs").appendFileSync(process.env.OUT, "ours\\n");');
		const options = nodeOptionsWith(`--require ${user}`, ours);
		expect(node(options, 'console.log("main")', { OUT: out })).toBe("main\n");
		expect(readFileSync(out, "utf8")).toBe("user\nours\n");
		expect(nodeOptionsWith(undefined, ours)).toBe(nodeOptionsWith("  ", ours));
		writeFileSync(out, "");
		node(nodeOptionsWith(undefined, ours), "", { OUT: out });
		expect(readFileSync(out, "utf8")).toBe("ours\n");
	});

	it("keeps a churning heap's old generation well below what V8 lets it grow to by itself", () => {
		const run = (nodeOptions: string | undefined) => JSON.parse(node(nodeOptions, CHURN)) as { peak: number };
		const own = run(undefined).peak;
		const preloaded = run(nodeOptionsWith(undefined, SERVER_PRELOAD as string)).peak;
		expect(preloaded).toBeLessThan(own * 0.7);
	});

	it("collects tsserver once it has gone idle, never while it works, and gives the pages back", async () => {
		type Run = { workStart: number; workEnd: number; worked: number; idle: number };
		// The same program as tsserver and as another Node process of the server (which it leaves alone).
		const dir = tempDir();
		const run = async (name: string) => {
			writeFileSync(join(dir, name), WORK_THEN_IDLE);
			const { NODE_OPTIONS: _, ...env } = process.env;
			const options = nodeOptionsWith(undefined, SERVER_PRELOAD as string);
			const { stdout } = await execFileAsync(process.execPath, ["--trace-gc", join(dir, name)], {
				env: { ...env, NODE_OPTIONS: options },
				maxBuffer: 16 * 1024 * 1024,
			});
			const { collections, result } = traced<Run>(stdout);
			return { ...result, ours: collections.filter((c) => c.reason === "testing").map((c) => c.at) };
		};
		const [tsserver, other] = await Promise.all([run("tsserver.js"), run("cli.js")]);
		// The trace counts from the isolate's start, a few milliseconds after performance.now()'s origin.
		const SLOP = 50;
		expect(tsserver.ours.filter((t) => t >= tsserver.workStart - SLOP && t <= tsserver.workEnd + SLOP)).toEqual([]);
		const idle = tsserver.ours.filter((t) => t > tsserver.workEnd);
		expect(idle.length).toBeGreaterThan(0);
		// Not before 2 s of quiet (counted from the last poll that saw work, at most 0.5 s before the work ended).
		expect(idle[0]).toBeGreaterThan(tsserver.workEnd + 1500 - SLOP);
		// One collection (its rounds run back to back), not one per poll.
		expect(idle.at(-1) as number).toBeLessThan(idle[0] + 1000);
		expect(tsserver.idle).toBeLessThan(tsserver.worked * 0.75);
		expect(other.ours).toEqual([]);
	});
});
