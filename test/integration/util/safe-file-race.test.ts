// The race half of safe-file's tests: another process swaps the file, or a folder on its way,
// for a link out while we read (the pure cases are in test/unit/util/safe-file.test.ts).
import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFileInRoot } from "../../../src/util/safe-file.ts";
import { startSwapper, stopSwapper } from "../../support/swapper.ts";
import { tempDir } from "../../support/temp.ts";

const LIMITS = { maxBytes: 1000, overLimit: "refuse" as const };

describe("reading a file someone else may control", () => {
	it("never returns outside bytes while another process swaps the file, or a folder on its way, for a link out", async () => {
		// Also when a listing's stat says the path held a regular file (the open goes straight to it).
		for (const [mode, listed] of [
			["file", false],
			["dir", false],
			["file", true],
			["dir", true],
		] as const) {
			const repo = tempDir();
			const outside = tempDir();
			writeFileSync(join(outside, "x.txt"), "SECRET-OUTSIDE\n");
			if (mode === "dir") {
				mkdirSync(join(repo, "d"));
				writeFileSync(join(repo, "d", "x.txt"), "INSIDE\n");
			}
			// The stat of a regular file, as a listing would have taken it before the swaps began.
			writeFileSync(join(repo, "listed.txt"), "INSIDE\n");
			const inside = lstatSync(join(repo, "listed.txt"));
			const swapper = await startSwapper(mode, repo, mode === "file" ? join(outside, "x.txt") : outside);
			const path = mode === "file" ? join(repo, "x.txt") : join(repo, "d", "x.txt");
			const tally = { inside: 0, refused: 0, missing: 0, leaked: 0 };
			const options = { root: repo, ...LIMITS, ...(listed ? { listed: inside } : {}) };
			// At least 1000 reads, and more until the swapper has really raced one (on a loaded
			// machine it may get no CPU while the first thousand run), bounded by a deadline.
			const deadline = Date.now() + 20_000;
			for (let i = 0; i < 1000 || (tally.refused === 0 && Date.now() < deadline); i++) {
				const r = readFileInRoot(path, options);
				if (r.state === "ok" && r.text.includes("SECRET")) tally.leaked++;
				else if (r.state === "ok") tally.inside++;
				else if (r.state === "refused") tally.refused++;
				else tally.missing++;
				if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
			}
			const swaps = await stopSwapper(swapper);
			expect(swaps).toBeGreaterThan(100);
			expect(tally.leaked).toBe(0);
			expect(tally.refused).toBeGreaterThan(0);
		}
	});
});
