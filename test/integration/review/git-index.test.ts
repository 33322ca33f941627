// The in-process index reader against indexes git itself wrote, in each version it writes.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { trackedAmong } from "../../../src/git/git-index.ts";
import { git, makeGitRepo, writeFiles } from "../../support/git.ts";

const wanted = new Set(["a.txt", "deep/er/b.txt", "deep/er/c.txt", "new.txt", "missing.txt", "ünï code.txt"]);

function repoWithFiles(): string {
	const repo = makeGitRepo({
		"a.txt": "a\n",
		"deep/er/b.txt": "b\n",
		"deep/er/c.txt": "c\n",
		"ünï code.txt": "u\n",
		"z.txt": "z\n",
	});
	writeFiles(repo, { "new.txt": "n\n" });
	git(repo, "add", "-N", "new.txt"); // intent-to-add: an extended-flags entry (version 3)
	return repo;
}

describe("trackedAmong", () => {
	for (const version of ["2", "3", "4"]) {
		it(`reads an index of version ${version}`, () => {
			const repo = repoWithFiles();
			git(repo, "update-index", "--index-version", version);
			expect(trackedAmong(join(repo, ".git", "index"), wanted, 20)).toEqual(
				new Set(["a.txt", "deep/er/b.txt", "deep/er/c.txt", "new.txt", "ünï code.txt"]),
			);
		});
	}

	it("cannot tell from a split index for a path it does not find", () => {
		const repo = repoWithFiles();
		git(repo, "update-index", "--split-index");
		writeFiles(repo, { "late.txt": "l\n" });
		git(repo, "add", "late.txt");
		const found = trackedAmong(join(repo, ".git", "index"), new Set(["missing.txt"]), 20);
		expect(found).toBeUndefined();
	});

	it("treats a repository without an index as tracking nothing", () => {
		const repo = makeGitRepo();
		expect(trackedAmong(join(repo, ".git", "no-index"), new Set(["README.md"]), 20)).toEqual(new Set());
	});
});
