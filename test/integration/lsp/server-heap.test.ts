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

// Garbage made, then 3 s of work that allocates nothing (no collection of V8's own falls in it), then 5 s
// idle: when the major collections ran, and the resident memory after the work and at the end.
const WORK_THEN_IDLE = `
const { PerformanceObserver, constants } = require("node:perf_hooks");
const majors = [];
new PerformanceObserver((list) => {
	for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors.push(e.startTime);
}).observe({ entryTypes: ["gc"] });
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
			console.log(JSON.stringify({ workStart, workEnd, worked, idle, majors, live: live.length }));
		}, 5000);
	})();
}, 300);
`;

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
		type Run = { workStart: number; workEnd: number; worked: number; idle: number; majors: number[] };
		// The same program as tsserver and as another Node process of the server (which it leaves alone).
		const dir = tempDir();
		const run = async (name: string) => {
			writeFileSync(join(dir, name), WORK_THEN_IDLE);
			const { NODE_OPTIONS: _, ...env } = process.env;
			const options = nodeOptionsWith(undefined, SERVER_PRELOAD as string);
			const { stdout } = await execFileAsync(process.execPath, [join(dir, name)], {
				env: { ...env, NODE_OPTIONS: options },
			});
			return JSON.parse(stdout) as Run;
		};
		const [tsserver, other] = await Promise.all([run("tsserver.js"), run("cli.js")]);
		expect(tsserver.majors.filter((t) => t >= tsserver.workStart && t <= tsserver.workEnd)).toEqual([]);
		const idle = tsserver.majors.filter((t) => t > tsserver.workEnd);
		expect(idle.length).toBeGreaterThan(0);
		// Not before 2 s of quiet (counted from the last poll that saw work, at most 0.5 s before the work ended).
		expect(idle[0]).toBeGreaterThan(tsserver.workEnd + 1500);
		// One collection (its rounds run back to back), not one per poll.
		expect(idle.at(-1) as number).toBeLessThan(idle[0] + 1000);
		expect(tsserver.idle).toBeLessThan(tsserver.worked * 0.75);
		// V8 by itself keeps the pages over those 5 s.
		expect(other.majors.filter((t) => t > other.workEnd)).toEqual([]);
		expect(other.idle).toBeGreaterThan(other.worked * 0.9);
	});
});
