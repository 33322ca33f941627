// The change the reviewer is sent, captured from a real repository: the same git reading as
// watchdog_diff for the run's paths, new files read through the guarded reader (links out of
// the repository and binaries are named, not read; a large file is cut; git lists no FIFO).
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createGitRunner } from "../../../src/git/index.ts";
import { captureChange, changeFor, readAhead } from "../../../src/review/change-capture.ts";
import { renderChange } from "../../../src/review/change-text.ts";
import { git, makeGitRepo } from "../../support/git.ts";
import { tempDir } from "../../support/temp.ts";

it("diffs the run's paths since the session start and reads new files safely", async () => {
	const repo = makeGitRepo({ "kept.txt": "one\n", "gone.txt": "bye\n", "other.txt": "x\n" });
	const baseline = git(repo, "rev-parse", "HEAD").trim();
	writeFileSync(join(repo, "kept.txt"), "two\n");
	rmSync(join(repo, "gone.txt"));
	writeFileSync(join(repo, "other.txt"), "not this run's\n");
	mkdirSync(join(repo, "src"));
	writeFileSync(join(repo, "src/new.ts"), "export const n = 1;\n");
	writeFileSync(join(repo, "blob.bin"), Buffer.from([1, 0, 2, 3]));
	writeFileSync(join(repo, "big.txt"), "y".repeat(100_000));
	const outside = join(tempDir(), "secret.txt");
	writeFileSync(outside, "SECRET-OUTSIDE\n");
	symlinkSync(outside, join(repo, "link.txt"));
	execFileSync("mkfifo", [join(repo, "pipe")]);
	const paths = ["kept.txt", "gone.txt", "src/new.ts", "blob.bin", "big.txt", "link.txt", "pipe"];

	const change = await captureChange({ root: repo, git: createGitRunner(repo), baseline }, paths);
	if ("absent" in change) expect.fail(change.absent);
	expect(change.base).toBe(baseline);
	expect(change.diff).toMatch(/-one\n\+two/);
	expect(change.diff).toMatch(/deleted file mode[\s\S]*-bye/);
	expect(change.diff).not.toContain("other.txt"); // changed, but not by this run
	const added = Object.fromEntries(change.added.map((f) => [f.path, f]));
	expect(added["src/new.ts"]).toEqual({ path: "src/new.ts", text: "export const n = 1;\n" });
	expect(added["blob.bin"].skipped).toMatch(/^binary/);
	expect(added["big.txt"]).toMatchObject({ truncated: true });
	expect(added["big.txt"].text?.length).toBe(32 * 1024);
	expect(added["link.txt"].skipped).toMatch(/outside/);
	expect(added.pipe).toBeUndefined(); // git lists no FIFO, so nothing opens it
	const text = renderChange(change, 12_000);
	expect(text).not.toContain("SECRET-OUTSIDE");
	expect(text).toContain("+export const n = 1;");
});

it("says why there is no diff outside git or without a start commit", async () => {
	const plain = tempDir();
	expect(await captureChange({ root: plain, baseline: undefined }, ["a.txt"])).toEqual({
		absent: "not a git repository here; read the changed paths with `read`",
	});
	const fresh = tempDir();
	git(fresh, "init", "-q");
	const runner = createGitRunner(fresh);
	expect(await captureChange({ root: fresh, git: runner, baseline: null }, ["a.txt"])).toMatchObject({
		absent: expect.stringMatching(/no commit when the session started/),
	});
	expect(await captureChange({ root: fresh, git: runner, baseline: null }, [])).toEqual({ absent: "no changed paths" });
});

it("reads the change ahead of the review: the review takes that reading when paths and place are the same", async () => {
	const repo = makeGitRepo({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 1;\n" });
	const baseline = git(repo, "rev-parse", "HEAD").trim();
	writeFileSync(join(repo, "a.ts"), "export const a = 2;\n");
	rmSync(join(repo, "b.ts"));
	writeFileSync(join(repo, "c.ts"), "export const c = 3;\n");
	const source = { root: repo, git: createGitRunner(repo), baseline };
	const paths = ["a.ts", "b.ts", "c.ts"];
	const review = new AbortController();

	const ahead = readAhead(source, paths);
	const taken = changeFor({ ...source }, [...paths], review.signal, ahead);
	expect(taken).toBe(ahead.change);
	expect(await taken).toEqual(await captureChange(source, paths));
	// The review's cancel stops the reading it took.
	review.abort();
	expect(ahead.stop.signal.aborted).toBe(true);

	// Other paths, another start commit, another root: read afresh, and the reading ahead is stopped.
	for (const [other, otherPaths] of [
		[source, ["a.ts", "b.ts"]],
		[{ ...source, baseline: "0".repeat(40) }, paths],
		[{ ...source, root: tempDir() }, paths],
	] as const) {
		const unused = readAhead(source, paths);
		const fresh = changeFor(other, otherPaths, new AbortController().signal, unused);
		expect(fresh).not.toBe(unused.change);
		expect(unused.stop.signal.aborted).toBe(true);
		expect(await fresh).toEqual(await captureChange(other, otherPaths));
	}
	// Taken by a review already cancelled: stopped at once, as that review's own reading would be.
	const late = readAhead(source, paths);
	const cancelled = new AbortController();
	cancelled.abort();
	void changeFor(source, paths, cancelled.signal, late);
	expect(late.stop.signal.aborted).toBe(true);
});
