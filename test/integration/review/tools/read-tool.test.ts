import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeGitRepo, writeFiles } from "../../../support/git.ts";
import { tempDir } from "../../../support/temp.ts";
import { toolsIn } from "../../../support/review-tools.ts";

const numbered = (n: number) => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("read", () => {
	it("shows a file with 1-based line numbers", async () => {
		const root = makeGitRepo({ "src/a.ts": "const a = 1;\nconst b = 2;\n" });
		const r = await toolsIn(root)("read", { path: "src/a.ts" });
		expect(r).toEqual({ isError: false, text: "1\tconst a = 1;\n2\tconst b = 2;" });
		expect((await toolsIn(root)("read", { path: "./src/../src/a.ts" })).isError).toBe(false);
		writeFiles(root, { "empty.txt": "" });
		expect((await toolsIn(root)("read", { path: "empty.txt" })).text).toMatch(/empty/);
	});

	it("reads a window with offset and limit, and says how to go on", async () => {
		const root = tempDir();
		writeFiles(root, { "long.txt": numbered(1000) });
		const read = toolsIn(root);
		const first = await read("read", { path: "long.txt" });
		expect(first.text.split("\n")[0]).toBe("  1\tline 1");
		expect(first.text).toContain("\n400\tline 400");
		expect(first.text).not.toContain("line 401");
		expect(first.text).toMatch(/\[showed lines 1–400 of 1000; continue with offset: 401\]$/);

		const window = await read("read", { path: "long.txt", offset: 10, limit: 3 });
		expect(window.text).toBe(
			"10\tline 10\n11\tline 11\n12\tline 12\n[showed lines 10–12 of 1000; continue with offset: 13]",
		);
		const tail = await read("read", { path: "long.txt", offset: 999 });
		expect(tail.text).toBe(" 999\tline 999\n1000\tline 1000\n[end of file: 1000 lines]");
		const past = await read("read", { path: "long.txt", offset: 1001 });
		expect(past).toEqual({ isError: true, text: "read: offset 1001 is past the end; long.txt has 1000 lines." });
		// Quoted numbers are accepted.
		expect((await read("read", { path: "long.txt", offset: "5", limit: "1" })).text).toMatch(/^5\tline 5\n/);
	});

	it("cuts at the output cap on a line end and names the next offset", async () => {
		const root = tempDir();
		writeFiles(root, { "wide.txt": Array.from({ length: 300 }, (_, i) => `${i + 1} ${"x".repeat(200)}`).join("\n") });
		const r = await toolsIn(root)("read", { path: "wide.txt", limit: 300 });
		expect(r.isError).toBe(false);
		expect(r.text.length).toBeLessThanOrEqual(20_000);
		const note = r.text.split("\n").at(-1) as string;
		const m = /^\[truncated at 20000 characters: showed lines 1–(\d+) of 300; continue with offset: (\d+)\]$/.exec(
			note,
		);
		expect(m).not.toBeNull();
		expect(Number(m?.[2])).toBe(Number(m?.[1]) + 1);
		// The last line shown is whole.
		expect(r.text.split("\n").at(-2)).toMatch(new RegExp(`^\\s*${m?.[1]}\\t${m?.[1]} x{200}$`));
	});

	it("cuts very long lines", async () => {
		const root = tempDir();
		writeFiles(root, { "min.js": `${"y".repeat(5000)}\n` });
		const r = await toolsIn(root)("read", { path: "min.js" });
		expect(r.text).toContain("… [3000 more characters]");
	});

	it("refuses binary files, folders, special files and missing files clearly", async () => {
		const root = tempDir();
		writeFiles(root, { "dir/x.txt": "x" });
		writeFileSync(join(root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
		const read = toolsIn(root);
		expect(await read("read", { path: "image.png" })).toEqual({
			isError: true,
			text: "read: image.png is a binary file (7 bytes); only text files can be shown.",
		});
		expect(await read("read", { path: "dir" })).toEqual({
			isError: true,
			text: "read: dir is a directory; use ls to list it.",
		});
		expect((await read("read", { path: "." })).text).toMatch(/the repository root is a directory/);
		expect((await read("read", { path: "nope.txt" })).text).toMatch(/nope\.txt does not exist; use ls or find/);
		execFileSync("mkfifo", [join(root, "pipe")]);
		expect((await read("read", { path: "pipe" })).text).toMatch(/not a regular file/);
	});

	it("rejects malformed arguments with a sentence naming the field", async () => {
		const read = toolsIn(tempDir());
		const cases: Array<[unknown, RegExp]> = [
			[{ path: 5 }, /"path" must be a string, got number 5/],
			[{}, /"path" is required/],
			[undefined, /"path" is required/],
			[{ path: "" }, /"path" must not be empty/],
			[{ path: "a", offset: 0 }, /"offset" must be at least 1, got 0/],
			[{ path: "a", offset: 1.5 }, /"offset" must be a whole number/],
			[{ path: "a", limit: 5000 }, /"limit" must be between 1 and 2000/],
			[["a"], /must be a JSON object, got an array/],
			["not json", /must be a JSON object, got the text "not json"/],
			[42, /must be a JSON object, got number 42/],
		];
		for (const [args, message] of cases) {
			const r = await read("read", args);
			expect(r.isError, JSON.stringify(args)).toBe(true);
			expect(r.text, JSON.stringify(args)).toMatch(message);
			expect(r.text).toContain("Expected arguments { path: string, offset?: integer, limit?: integer }");
		}
	});

	it("takes arguments sent as a JSON string", async () => {
		const root = tempDir();
		writeFiles(root, { "a.txt": "hello\n" });
		expect(await toolsIn(root)("read", '{"path":"a.txt"}')).toEqual({ isError: false, text: "1\thello" });
	});

	it("refuses every path outside the root", async () => {
		const root = makeGitRepo({ "a.txt": "a\n" });
		const outside = tempDir();
		writeFiles(outside, { "secret.txt": "SECRET\n" });
		symlinkSync(join(outside, "secret.txt"), join(root, "link-file"));
		symlinkSync(outside, join(root, "link-dir"));
		mkdirSync(join(root, "sub"));
		const read = toolsIn(root);
		for (const path of [
			"../x",
			"a/../../x",
			"sub/../../secret.txt",
			"/etc/passwd",
			join(outside, "secret.txt"),
			"link-file",
			"link-dir/secret.txt",
			"~/x",
			".git/config",
			".git/HEAD",
		]) {
			const r = await read("read", { path });
			expect(r.isError, path).toBe(true);
			expect(r.text, path).toMatch(
				/^read: .*(leaves the repository root|outside the repository|symbolic link that points outside|~|\.git)/,
			);
			expect(r.text).not.toContain("SECRET");
		}
	});

	it("stops when the request is already aborted", async () => {
		const root = tempDir();
		writeFiles(root, { "a.txt": "a\n" });
		const controller = new AbortController();
		controller.abort();
		expect(await toolsIn(root)("read", { path: "a.txt" }, controller.signal)).toEqual({
			isError: true,
			text: "read: cancelled before it started.",
		});
	});
});
