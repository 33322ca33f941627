// The change the reviewer reads first: git's diff and new files in full, fitted to its room so
// that every file keeps a fair share. Pure.
import { describe, expect, it } from "vitest";
import type { RecordedChange } from "../../../src/review/change-capture.ts";
import { changePaths, renderChange } from "../../../src/review/change-text.ts";

const diffOf = (path: string, lines: number) =>
	[
		`diff --git a/${path} b/${path}`,
		"index 1111111..2222222 100644",
		`--- a/${path}`,
		`+++ b/${path}`,
		`@@ -1,1 +1,${lines} @@`,
		...Array.from({ length: lines }, (_, i) => `+${path} line ${i}`),
	].join("\n");

describe("the change", () => {
	it("shows a new file as a diff that adds each line, and says what it could not show", () => {
		const change: RecordedChange = {
			base: "abc1234",
			diff: "",
			added: [
				{ path: "a.txt", text: "one\ntwo" },
				{ path: "img.png", skipped: "binary, 2048 bytes" },
				{ path: "big.log", text: "x\n", truncated: true },
			],
			leftOut: 3,
		};
		expect(renderChange(change, 10_000)).toBe(
			[
				"diff --git a/a.txt b/a.txt",
				"new file (untracked)",
				"--- /dev/null",
				"+++ b/a.txt",
				"@@ -0,0 +1,2 @@",
				"+one",
				"+two",
				"\\ No newline at end of file",
				"diff --git a/big.log b/big.log",
				"new file (untracked)",
				"--- /dev/null",
				"+++ b/big.log",
				"@@ -0,0 +1,1 @@",
				"+x",
				"[… the file goes on past what was read]",
				"new file img.png: content not shown (binary, 2048 bytes)",
				"[3 more changed path(s) not diffed here; watchdog_diff shows them]",
			].join("\n"),
		);
		expect([...changePaths(change)]).toEqual(["a.txt", "big.log"]);
		expect(renderChange({ absent: "not a git repository here" }, 100)).toBe("(no diff: not a git repository here)");
	});

	it("gives small files whole and cuts a large one at a line end, saying how to see the rest", () => {
		const diff = [
			diffOf("huge.ts", 2000),
			diffOf("small.ts", 3),
			diffOf("gone.ts", 2).replace("+++ b/gone.ts", "+++ /dev/null"),
		].join("\n");
		const text = renderChange({ base: "abc1234", diff, added: [], leftOut: 0 }, 3000);
		expect(text.length).toBeLessThanOrEqual(3000);
		expect(text).toContain(diffOf("small.ts", 3));
		expect(text).toContain("+gone.ts line 1");
		expect(text).toMatch(
			/\n\+huge\.ts line \d+\n\[… [\d,]+ more characters of huge\.ts; watchdog_diff with "path": "huge\.ts" shows it whole\]/,
		);
		expect(changePaths({ base: "abc1234", diff, added: [], leftOut: 0 })).toEqual(
			new Set(["huge.ts", "small.ts", "gone.ts"]),
		);
	});

	it("names the files it has no room for instead of showing slivers of each", () => {
		const diff = Array.from({ length: 40 }, (_, i) => diffOf(`f${i}.ts`, 50)).join("\n");
		const text = renderChange({ base: "abc1234", diff, added: [], leftOut: 0 }, 4000);
		expect(text.length).toBeLessThanOrEqual(4000);
		expect(text).toContain("+f0.ts line 0");
		expect(text).toMatch(
			/\[\d+ more file\(s\) not shown for room: [^\]]*f39\.ts; watchdog_diff with "path" shows each\]$/,
		);
	});
});
