// The bundled language server's heap preload: NODE_OPTIONS carries it to every Node process the server
// starts (whatever its path), after what the user set there; and it keeps a heap that churns through garbage
// near its live size, where V8's own choice lets it grow to several times that.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeOptionsWith, SERVER_PRELOAD } from "../../../src/lsp/server-heap.ts";
import { tempDir } from "../../support/temp.ts";

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
});
