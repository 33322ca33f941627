import { realpathSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { walkFiles } from "../../../../src/review/tools/walk.ts";
import { writeFiles } from "../../../support/git.ts";
import { tempDir } from "../../../support/temp.ts";

function busy(ms: number): void {
	const until = performance.now() + ms;
	while (performance.now() < until);
}

describe("walkFiles", () => {
	it("lets a deadline's timer fire while its caller works synchronously on each file", async () => {
		// One folder, so the walk awaits no I/O between files: only its own turns let a timer run.
		const root = realpathSync(tempDir());
		writeFiles(
			root,
			Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, "x"])),
		);
		const signal = AbortSignal.timeout(50);
		const started = performance.now();
		let seen = 0;
		for await (const _ of walkFiles({ abs: root, rel: "" }, root, signal)) {
			seen++;
			busy(5); // 200 files × 5 ms = 1 s, were nothing to stop it
		}
		const ms = performance.now() - started;
		expect(signal.aborted).toBe(true);
		expect(seen).toBeLessThan(60);
		expect(ms).toBeLessThan(400);
	});

	it("yields every file of a small tree, in order, when nothing aborts", async () => {
		const root = realpathSync(tempDir());
		writeFiles(root, { "b.txt": "", "a/z.txt": "", "a/y.txt": "", ".git/HEAD": "", "node_modules/m/i.js": "" });
		const seen: string[] = [];
		for await (const file of walkFiles({ abs: root, rel: "" }, root, new AbortController().signal)) seen.push(file.rel);
		expect(seen).toEqual(["b.txt", "a/y.txt", "a/z.txt"]);
	});
});
