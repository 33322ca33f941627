import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findRepo, readHead } from "../../src/git/repo.ts";
import { git, makeGitRepo } from "../support/git.ts";

describe("reading HEAD from git's own files", () => {
	it("reads the commit HEAD points at, loose or packed", () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const head = git(repo, "rev-parse", "HEAD").trim();
		const location = findRepo(repo);
		expect(location && readHead(location)).toBe(head);
		git(repo, "pack-refs", "--all");
		expect(location && readHead(location)).toBe(head);
	});

	it("gives up, never hangs or reads outside, when the repository's files are hostile", () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const location = findRepo(repo);
		if (!location) return expect.fail("no repository found");
		const headFile = join(location.gitDir, "HEAD");
		// A ref that names a path out of the git folder (here a device that never ends).
		writeFileSync(headFile, "ref: ../../../../../../../../dev/zero\n");
		expect(readHead(location)).toBeUndefined();
		writeFileSync(headFile, "ref: refs/../../../../../../../../dev/zero\n");
		expect(readHead(location)).toBeUndefined();
		// HEAD itself a FIFO: no writer will ever come.
		rmSync(headFile);
		execFileSync("mkfifo", [headFile]);
		const started = Date.now();
		expect(readHead(location)).toBeUndefined();
		expect(Date.now() - started).toBeLessThan(500);
	});
});
