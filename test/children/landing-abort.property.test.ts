// Property: whenever a landing is cut short (its signal aborted at any moment, before it starts
// or at any step of it), every byte the child wrote ends in the user's tree or in a patch that
// exists and `git apply` takes on the user's tree as it is. Real git repositories throughout.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createWorktree, landWorktree, removeWorktree } from "../../src/git/index.ts";
import { git, makeGitRepo, writeFiles } from "../support/git.ts";
import { tempDir } from "../support/temp.ts";

const START = { "a.txt": "a\n", "src/b.ts": "export const b = 1;\n", "docs/c.md": "# c\n" };

/** What a child does: new files, rewrites of existing ones, deletions. */
const childWork = fc.record({
	added: fc.uniqueArray(fc.constantFrom("new.txt", "src/new.ts", "deep/er/file.txt", "ü name.txt"), { maxLength: 3 }),
	changed: fc.uniqueArray(fc.constantFrom(...Object.keys(START)), { maxLength: 3 }),
	deleted: fc.uniqueArray(fc.constantFrom(...Object.keys(START)), { maxLength: 2 }),
	text: fc.string({ minLength: 1, maxLength: 40 }),
	abortAfterMs: fc.option(fc.integer({ min: 0, max: 250 }), { nil: undefined }),
});

describe("a landing cut short at any point", () => {
	it("leaves every byte the child wrote in the user's tree or in a patch that applies there", async () => {
		await fc.assert(
			fc.asyncProperty(childWork, async (work) => {
				const repo = makeGitRepo(START);
				const runs = tempDir();
				const wt = await createWorktree(repo, join(runs, "worktrees", "1"));
				const expected = new Map<string, string | undefined>();
				for (const path of work.added) expected.set(path, `${path}: ${work.text}\n`);
				for (const path of work.changed) expected.set(path, `${path} changed: ${work.text}\n`);
				writeFiles(wt.dir, Object.fromEntries([...expected].map(([p, c]) => [p, c as string])));
				for (const path of work.deleted.filter((p) => !expected.has(p))) {
					rmSync(join(wt.dir, path));
					expected.set(path, undefined);
				}
				const stop = new AbortController();
				if (work.abortAfterMs === 0) stop.abort();
				else if (work.abortAfterMs !== undefined) setTimeout(() => stop.abort(), work.abortAfterMs);
				const landed = await landWorktree(wt, join(runs, "patches"), "child", stop.signal);
				await removeWorktree(wt);
				if (expected.size === 0) {
					expect(landed.status).toBe("unchanged");
					return;
				}
				if (landed.status === "conflict") {
					// The patch exists, applies to the user's tree as it is, and applying it brings the child's bytes.
					const patch = landed.patchPath as string;
					expect(existsSync(patch)).toBe(true);
					git(repo, "apply", "--check", patch);
					git(repo, "apply", patch);
				} else expect(landed.status).toBe("applied");
				for (const [path, content] of expected) {
					if (content === undefined) expect(existsSync(join(repo, path))).toBe(false);
					else expect(readFileSync(join(repo, path), "utf8")).toBe(content);
				}
			}),
			{ numRuns: 25 },
		);
	}, 240_000);
});
