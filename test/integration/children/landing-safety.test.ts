// What a landing refuses to write, on real git repositories: a file of the user's that git does
// not track (an ignored `.env`), and a link that points out of the repository. Either way
// nothing is written, and the child's change is kept as a patch that exists and applies.
import {
	existsSync,
	lstatSync,
	mkdirSync,
	readFileSync,
	readlinkSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { createWorktree, landWorktree, removeWorktree } from "../../../src/git/index.ts";
import { landingLine } from "../../../src/children/launch-result.ts";
import { git, makeGitRepo, writeFiles } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { tempDir } from "../../support/temp.ts";
import { type Ctx, text, toolUse } from "../review/review-helpers.ts";

const read = (path: string) => readFileSync(path, "utf8");
const status = (repo: string) =>
	git(repo, "--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=all", "--ignored");

/** The patch applies, as is, to the user's tree at `repo` (checked without writing). */
function appliesTo(repo: string, patch: string): void {
	git(repo, "apply", "--check", patch);
}

describe("a landing never overwrites the user's untracked files", () => {
	it("keeps the user's ignored .env when the child force-added its own: a conflict, nothing written, the patch kept", async () => {
		const repo = makeGitRepo({ ".gitignore": ".env\n", "app.txt": "app\n" });
		writeFiles(repo, { ".env": "USER_SECRET=keepme\n" });
		const wt = await createWorktree(repo, join(tempDir(), "worktrees", "1"));
		expect(existsSync(join(wt.dir, ".env"))).toBe(false);
		writeFiles(wt.dir, { ".env": "CHILD=1\n", "app.txt": "app, by the child\n" });
		git(wt.dir, "add", "-f", ".env");
		const before = status(repo);
		const patches = tempDir();
		const landed = await landWorktree(wt, patches, "child");
		expect(landed.status).toBe("conflict");
		expect(landed.conflicts).toEqual([".env"]);
		expect(read(join(repo, ".env"))).toBe("USER_SECRET=keepme\n");
		expect(read(join(repo, "app.txt"))).toBe("app\n");
		expect(status(repo)).toBe(before);
		const patch = landed.patchPath as string;
		expect(patch).toBe(join(patches, "child.patch"));
		expect(read(patch)).toContain("+CHILD=1");
		// It applies to the user's files once the user moves their .env aside.
		rmSync(join(repo, ".env"));
		appliesTo(repo, patch);
		await removeWorktree(wt);
	});

	it("keeps an ignored folder's file and a file that sits where the child wants a folder", async () => {
		const repo = makeGitRepo({ ".gitignore": "cache\nbuild/\n", "a.txt": "a\n" });
		writeFiles(repo, { cache: "user cache file\n", "build/out.js": "user build\n" });
		const wt = await createWorktree(repo, join(tempDir(), "worktrees", "1"));
		writeFiles(wt.dir, { "cache/x.txt": "child\n", "build/out.js": "child build\n" });
		git(wt.dir, "add", "-f", "cache/x.txt", "build/out.js");
		const landed = await landWorktree(wt, tempDir(), "child");
		expect(landed.status).toBe("conflict");
		expect(landed.conflicts).toEqual(["build/out.js", "cache/x.txt"]);
		expect(read(join(repo, "cache"))).toBe("user cache file\n");
		expect(read(join(repo, "build/out.js"))).toBe("user build\n");
		expect(existsSync(landed.patchPath as string)).toBe(true);
		await removeWorktree(wt);
	});

	it("still lands a new file in an ignored folder where nothing of the user's is in the way", async () => {
		const repo = makeGitRepo({ ".gitignore": "build/\n", "a.txt": "a\n" });
		writeFiles(repo, { "build/out.js": "user build\n" });
		const wt = await createWorktree(repo, join(tempDir(), "worktrees", "1"));
		writeFiles(wt.dir, { "build/new.js": "child\n" });
		git(wt.dir, "add", "-f", "build/new.js");
		expect(await landWorktree(wt, tempDir(), "child")).toEqual({ status: "applied", paths: ["build/new.js"] });
		expect(read(join(repo, "build/new.js"))).toBe("child\n");
		expect(read(join(repo, "build/out.js"))).toBe("user build\n");
		await removeWorktree(wt);
	});
});

describe("a landing never adds a link out of the repository", () => {
	it("refuses to turn the user's folder into a link to outside: nothing written, the patch kept and named", async () => {
		const repo = makeGitRepo({ "docs/a.md": "a\n", "docs/b.md": "b\n", "keep.txt": "k\n" });
		const outside = tempDir("pi-watchdog-outside-");
		const wt = await createWorktree(repo, join(tempDir(), "worktrees", "1"));
		rmSync(join(wt.dir, "docs"), { recursive: true });
		symlinkSync(outside, join(wt.dir, "docs"));
		writeFiles(wt.dir, { "keep.txt": "k, by the child\n" });
		const before = status(repo);
		const landed = await landWorktree(wt, tempDir(), "linker");
		expect(landed.status).toBe("conflict");
		expect(landed.conflicts).toEqual(["docs"]);
		expect(landed.reason).toMatch(/link.*outside the repository.*docs/);
		expect(lstatSync(join(repo, "docs")).isDirectory()).toBe(true);
		expect(read(join(repo, "docs/a.md"))).toBe("a\n");
		expect(read(join(repo, "keep.txt"))).toBe("k\n");
		expect(status(repo)).toBe(before);
		const patch = landed.patchPath as string;
		expect(existsSync(patch)).toBe(true);
		appliesTo(repo, patch);
		await removeWorktree(wt);
	});

	it("refuses relative links that climb out and links into .git, and lands links that stay inside", async () => {
		const repo = makeGitRepo({ "src/a.ts": "a\n" });
		const wt = await createWorktree(repo, join(tempDir(), "worktrees", "1"));
		mkdirSync(join(wt.dir, "deep"));
		symlinkSync("../../..", join(wt.dir, "deep/up"));
		symlinkSync("../.git/config", join(wt.dir, "deep/gitconfig"));
		const bad = await landWorktree(wt, tempDir(), "c");
		expect(bad.status).toBe("conflict");
		expect(bad.conflicts).toEqual(["deep/gitconfig", "deep/up"]);
		expect(existsSync(join(repo, "deep"))).toBe(false);
		await removeWorktree(wt);

		const ok = await createWorktree(repo, join(tempDir(), "worktrees", "2"));
		mkdirSync(join(ok.dir, "deep"));
		symlinkSync("../src/a.ts", join(ok.dir, "deep/a.ts"));
		expect(await landWorktree(ok, tempDir(), "c")).toEqual({ status: "applied", paths: ["deep/a.ts"] });
		expect(readlinkSync(join(repo, "deep/a.ts"))).toBe("../src/a.ts");
		await removeWorktree(ok);
	});
});

describe("a change that can be neither landed nor saved", () => {
	it("throws, and leaves the child's worktree with its files and the user's files as they were", async () => {
		const repo = makeGitRepo({ "shared.txt": "one\n" });
		const wt = await createWorktree(repo, join(tempDir(), "worktrees", "1"));
		writeFiles(wt.dir, { "shared.txt": "one, by the child\n" });
		writeFiles(repo, { "shared.txt": "one, by the user\n" });
		// A file where the patch folder should be: the conflict's patch cannot be written.
		const notAFolder = join(tempDir(), "patches");
		writeFileSync(notAFolder, "");
		await expect(landWorktree(wt, notAFolder, "child")).rejects.toThrow();
		expect(read(join(wt.dir, "shared.txt"))).toBe("one, by the child\n");
		expect(read(join(repo, "shared.txt"))).toBe("one, by the user\n");
		// What the parent's model reads then names the worktree that still holds the change.
		const line = landingLine({
			status: "conflict",
			paths: [],
			conflicts: [],
			reason: "its change could be neither landed nor saved as a patch (x)",
			worktreeDir: wt.dir,
		});
		expect(line).toBe(
			`Not landed: its change could be neither landed nor saved as a patch (x); the child's files are still in its worktree at ${wt.dir}.`,
		);
		await removeWorktree(wt);
	});
});

describe("through a real session", () => {
	it("a worker that force-adds its own .env does not land it over the user's; the other worker's change lands", async () => {
		const repo = makeGitRepo({ ".gitignore": ".env\n", "a.txt": "a\n" });
		writeFiles(repo, { ".env": "USER_SECRET=keepme\n" });
		const t = await startSession({ cwd: repo });
		const first = (ctx: Ctx) => text(ctx.messages.find((m) => m.role === "user")?.content);
		const done = (ctx: Ctx) => ctx.messages.some((m) => m.role === "toolResult");
		const script = (ctx: Ctx) => {
			const task = first(ctx);
			if (task.startsWith("ENV-TASK"))
				return done(ctx)
					? fauxAssistantMessage("env set")
					: toolUse("bash", { command: "printf 'CHILD=1\\n' > .env && git add -f .env" });
			if (task.startsWith("B-TASK"))
				return done(ctx) ? fauxAssistantMessage("b written") : toolUse("write", { path: "b.txt", content: "b\n" });
			return done(ctx)
				? fauxAssistantMessage("Both ran.")
				: toolUse("subagent", {
						tasks: [
							{ agent: "worker", task: "ENV-TASK" },
							{ agent: "worker", task: "B-TASK" },
						],
					});
		};
		t.main.setResponses(Array.from({ length: 8 }, () => script as never));
		try {
			await t.session.prompt("run both");
			await t.session.waitForIdle();
			const result = (t.session.messages as Array<{ role: string; toolName?: string; content: unknown }>)
				.filter((m) => m.toolName === "subagent")
				.map((m) => text(m.content))
				.join("\n");
			expect(result).toMatch(
				/Not landed: files of yours that git does not track \(ignored or new\) are where it writes: \.env; the child's patch is at (\S+\.patch)\./,
			);
			expect(result).toMatch(/Changes landed in your tree: b\.txt\./);
			expect(read(join(repo, ".env"))).toBe("USER_SECRET=keepme\n");
			expect(read(join(repo, "b.txt"))).toBe("b\n");
			const patch = /the child's patch is at (\S+\.patch)\./.exec(result)?.[1] as string;
			expect(read(patch)).toContain("+CHILD=1");
		} finally {
			await t.dispose();
		}
	});
});
