import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileToken, readFileInRoot } from "../../../src/util/safe-file.ts";
import { tempDir } from "../../support/temp.ts";

const LIMITS = { maxBytes: 1000, overLimit: "refuse" as const };

function setup(): { root: string; outside: string } {
	const root = tempDir();
	const outside = join(tempDir(), "id_rsa");
	writeFileSync(outside, "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n");
	return { root, outside };
}

describe("reading a file someone else may control", () => {
	it("reads a regular file, without a byte-order mark", () => {
		const { root } = setup();
		writeFileSync(join(root, "a.json"), "\uFEFF{}");
		expect(readFileInRoot(join(root, "a.json"), { root, ...LIMITS })).toMatchObject({
			state: "ok",
			text: "{}",
			size: 5,
			truncated: false,
		});
		expect(readFileInRoot(join(root, "none.json"), { root, ...LIMITS })).toEqual({ state: "missing" });
	});

	it("follows a link that stays inside the root, and refuses one that leaves it", () => {
		const { root, outside } = setup();
		mkdirSync(join(root, "real"));
		writeFileSync(join(root, "real", "b.md"), "inside");
		symlinkSync(join(root, "real", "b.md"), join(root, "in.md"));
		expect(readFileInRoot(join(root, "in.md"), { root, ...LIMITS })).toMatchObject({ state: "ok", text: "inside" });
		symlinkSync(outside, join(root, "out.md"));
		const out = readFileInRoot(join(root, "out.md"), { root, ...LIMITS });
		expect(out).toMatchObject({ state: "refused" });
		if (out.state === "refused") expect(out.reason).toMatch(/leads outside/);
		// A folder on the way that links out counts the same.
		symlinkSync(join(outside, ".."), join(root, "dir"));
		expect(readFileInRoot(join(root, "dir", "id_rsa"), { root, ...LIMITS })).toMatchObject({ state: "refused" });
		// A broken link is a missing file.
		symlinkSync(join(root, "gone"), join(root, "broken.md"));
		expect(readFileInRoot(join(root, "broken.md"), { root, ...LIMITS })).toEqual({ state: "missing" });
	});

	it("refuses a FIFO at once, without waiting for a writer", () => {
		const { root } = setup();
		const fifo = join(root, "settings.json");
		execFileSync("mkfifo", [fifo]);
		const started = Date.now();
		const r = readFileInRoot(fifo, { root, ...LIMITS });
		expect(Date.now() - started).toBeLessThan(500);
		expect(r).toMatchObject({ state: "refused" });
		if (r.state === "refused") expect(r.reason).toMatch(/a FIFO, not a regular file/);
		expect(fileToken(fifo)).not.toBe("missing"); // looking at it never opens it
	});

	it("refuses devices, also when linked from inside the root", () => {
		const root = tempDir();
		symlinkSync("/dev/zero", join(root, "zero"));
		expect(readFileInRoot(join(root, "zero"), { root, ...LIMITS })).toMatchObject({ state: "refused" });
		expect(readFileInRoot("/dev/zero", { root: "/dev", ...LIMITS })).toMatchObject({ state: "refused" });
	});

	it("reads at most maxBytes: a large file is refused or cut, never read whole", () => {
		const { root } = setup();
		const big = join(root, "big");
		writeFileSync(big, "");
		truncateSync(big, 300 * 1024 * 1024); // sparse: 300 MB on paper
		const before = process.memoryUsage().rss;
		const refused = readFileInRoot(big, { root, maxBytes: 1000, overLimit: "refuse" });
		expect(refused).toMatchObject({ state: "refused" });
		if (refused.state === "refused") expect(refused.reason).toMatch(/over the 1000-byte limit/);
		const cut = readFileInRoot(big, { root, maxBytes: 32 * 1024, overLimit: "truncate" });
		expect(cut).toMatchObject({ state: "ok", truncated: true, size: 300 * 1024 * 1024 });
		if (cut.state === "ok") expect(cut.text.length).toBe(32 * 1024);
		expect(process.memoryUsage().rss - before).toBeLessThan(50 * 1024 * 1024);
	});

	it("with a listing's stat, opens the file at once and still refuses what was swapped in since", () => {
		const { root, outside } = setup();
		const file = join(root, "s.jsonl");
		writeFileSync(file, "inside\n");
		const listed = lstatSync(file);
		expect(readFileInRoot(file, { root, ...LIMITS, listed })).toMatchObject({ state: "ok", text: "inside\n" });
		// A link out put where the listing saw a regular file: not followed.
		rmSync(file);
		symlinkSync(outside, file);
		const out = readFileInRoot(file, { root, ...LIMITS, listed });
		expect(out).toMatchObject({ state: "refused" });
		if (out.state === "refused") expect(out.reason).toMatch(/leads outside/);
		// A link that stays inside is still read (through the full check).
		rmSync(file);
		mkdirSync(join(root, "real"));
		writeFileSync(join(root, "real", "t.jsonl"), "linked\n");
		symlinkSync(join(root, "real", "t.jsonl"), file);
		expect(readFileInRoot(file, { root, ...LIMITS, listed })).toMatchObject({ state: "ok", text: "linked\n" });
		// A FIFO swapped in: refused at once, never waited on.
		rmSync(file);
		execFileSync("mkfifo", [file]);
		const started = Date.now();
		const fifo = readFileInRoot(file, { root, ...LIMITS, listed });
		expect(Date.now() - started).toBeLessThan(500);
		expect(fifo).toMatchObject({ state: "refused" });
		if (fifo.state === "refused") expect(fifo.reason).toMatch(/a FIFO, not a regular file/);
		// A folder on the way swapped for a link out.
		mkdirSync(join(root, "d"));
		writeFileSync(join(root, "d", "id_rsa"), "inside\n");
		const inDir = lstatSync(join(root, "d", "id_rsa"));
		rmSync(join(root, "d"), { recursive: true });
		symlinkSync(join(outside, ".."), join(root, "d"));
		const viaDir = readFileInRoot(join(root, "d", "id_rsa"), { root, ...LIMITS, listed: inDir });
		expect(viaDir).toMatchObject({ state: "refused" });
		// A folder on the way swapped for a link to another folder inside: another file, read after the full check.
		mkdirSync(join(root, "e"));
		writeFileSync(join(root, "e", "id_rsa"), "moved\n");
		rmSync(join(root, "d"));
		symlinkSync(join(root, "e"), join(root, "d"));
		const viaInside = readFileInRoot(join(root, "d", "id_rsa"), { root, ...LIMITS, listed: inDir });
		expect(viaInside).toMatchObject({ state: "ok", text: "moved\n" });
		// Gone since the listing.
		expect(readFileInRoot(join(root, "none"), { root, ...LIMITS, listed })).toEqual({ state: "missing" });
	});

	it("names a directory as such", () => {
		const { root } = setup();
		mkdirSync(join(root, "settings.json"));
		const r = readFileInRoot(join(root, "settings.json"), { root, ...LIMITS });
		if (r.state === "refused") expect(r.reason).toMatch(/is a directory/);
		else expect.fail("a directory must be refused");
	});
});
