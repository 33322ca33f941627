// Every git process the watchdog starts goes through git/git-process.ts, and none runs a
// program the repository configured: hooks, fsmonitor, filter, merge and diff drivers, the
// external diff. A real repository has each of them write a marker; the change gate, the
// reviewer's diff tool and a worktree's whole life (create, land cleanly, land on a conflict)
// run against it, and no marker may appear.
import { chmodSync, existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { createWorktree, landWorktree, removeWorktree } from "../../../src/git/index.ts";
import { ChangeGate } from "../../../src/review/change-gate.ts";
import { createReviewerReadTools } from "../../../src/review/tools/reviewer-tools.ts";
import { gitOk, runGit } from "../../../src/git/index.ts";
import { git, makeGitRepo, writeFiles } from "../../support/git.ts";
import { tempDir } from "../../support/temp.ts";

const SRC = join(import.meta.dirname, "../../../src");
const BIN = join(import.meta.dirname, "../../../bin");

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|mjs|js)$/.test(e.name) ? [join(dir, e.name)] : [],
	);
}

/** Files that may start processes, and what they start (none of them git). */
const PROCESS_STARTERS: Record<string, string> = {
	"src/git/git-process.ts": "git, guarded",
	"src/lsp/lsp-server.ts": "the language server",
	"src/children/background.ts": "the background runner (node)",
	"src/doctor/checks.ts": "pi-watchdog doctor: pi --version, git --version, the language server's --version",
	"src/fleet/run.ts": "fleet.notify: the user's own command (a project cannot set it)",
	"src/fleet/tmux.ts": "tmux list-panes / send-keys for the fleet's nudges",
};

describe("the one place git starts", () => {
	it("is git/git-process.ts: no other source file starts a process unless listed here, and none names git to a process API", () => {
		const root = join(SRC, "..");
		const starters: string[] = [];
		const gitSpawns: string[] = [];
		for (const file of [...sources(SRC), ...sources(BIN)]) {
			const text = readFileSync(file, "utf8");
			const name = relative(root, file);
			if (/(from|require\(|import\()\s*["'](node:)?child_process["']|["']simple-git["']/.test(text))
				starters.push(name);
			if (
				name !== "src/git/git-process.ts" &&
				/\b(spawn|spawnSync|exec|execSync|execFile|execFileSync|fork)\s*\(\s*["'`]git\b/.test(text)
			)
				gitSpawns.push(name);
		}
		expect(starters.sort()).toEqual(Object.keys(PROCESS_STARTERS).sort());
		expect(gitSpawns).toEqual([]);
	});
});

/** A repository whose hooks, fsmonitor and drivers each append their name to `marks`. */
function boobyTrappedRepo(): { repo: string; marks: string; marked: () => string } {
	const repo = makeGitRepo({ "lines.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\n", "other.txt": "other\n" });
	const marks = join(tempDir("pi-watchdog-marks-"), "marks.log");
	const script = (name: string, body = "") => {
		const path = join(tempDir("pi-watchdog-prog-"), name);
		writeFileSync(path, `#!/bin/sh\necho "${name} $*" >> '${marks}'\n${body}`);
		chmodSync(path, 0o755);
		return path;
	};
	for (const hook of [
		"post-checkout",
		"post-index-change",
		"pre-commit",
		"post-commit",
		"pre-auto-gc",
		"reference-transaction",
		"post-merge",
	]) {
		writeFileSync(join(repo, ".git", "hooks", hook), `#!/bin/sh\necho "hook ${hook}" >> '${marks}'\n`);
		chmodSync(join(repo, ".git", "hooks", hook), 0o755);
	}
	git(repo, "config", "core.fsmonitor", script("fsmonitor"));
	git(repo, "config", "filter.trap.clean", `${script("clean", "cat\n")}`);
	git(repo, "config", "filter.trap.smudge", `${script("smudge", "cat\n")}`);
	git(repo, "config", "filter.trap.required", "true");
	git(repo, "config", "merge.trap.driver", `${script("merge")} %A %O %B`);
	git(repo, "config", "diff.trap.textconv", script("textconv", 'cat "$1"\n'));
	git(repo, "config", "diff.trap.command", script("diffdriver"));
	git(repo, "config", "diff.external", script("external"));
	git(repo, "config", "core.pager", script("pager"));
	writeFiles(repo, { ".gitattributes": "* filter=trap merge=trap diff=trap\n" });
	git(
		repo,
		"-c",
		"core.hooksPath=/dev/null",
		"-c",
		"core.fsmonitor=false",
		"-c",
		"filter.trap.clean=cat",
		"add",
		".gitattributes",
	);
	git(
		repo,
		"-c",
		"core.hooksPath=/dev/null",
		"-c",
		"core.fsmonitor=false",
		"-c",
		"filter.trap.clean=cat",
		"commit",
		"-qm",
		"attributes",
	);
	writeFileSync(marks, ""); // (whatever the setup itself set off)
	return { repo, marks, marked: () => (existsSync(marks) ? readFileSync(marks, "utf8") : "") };
}

describe("a repository's own programs", () => {
	it("are proven to run under plain git (the trap works)", () => {
		const { repo, marked } = boobyTrappedRepo();
		writeFiles(repo, { "lines.txt": "changed\n" });
		git(repo, "status", "--porcelain");
		git(repo, "add", "lines.txt"); // a clean filter runs on every file added
		expect(marked()).toMatch(/fsmonitor/);
		expect(marked()).toMatch(/clean/);
	});

	it("never run from the change gate, the reviewer's diff, or a worktree created, landed and removed", async () => {
		const { repo, marked } = boobyTrappedRepo();
		const baseline = git(repo, "rev-parse", "HEAD").trim();

		// The change gate: a bash run that changes a tracked file and adds one.
		const gate = new ChangeGate({ cwd: repo, ignore: () => false });
		await gate.beforeTool("bash", {});
		writeFiles(repo, { "lines.txt": "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n", "new.txt": "new\n" });
		gate.afterTool("bash", {}, false);
		expect(await gate.finish()).toMatchObject({ changed: true, paths: ["lines.txt", "new.txt"] });

		// The reviewer's diff tool.
		const diff = createReviewerReadTools({ root: repo, baseline }).find((t) => t.name === "watchdog_diff");
		const shown = await diff?.execute({}, new AbortController().signal);
		expect(JSON.stringify(shown)).toContain("+ONE");

		// A worktree, a clean three-way landing (both sides edited lines.txt), a conflicting one, removal.
		const runs = tempDir("pi-watchdog-runs-");
		const wt = await createWorktree(repo, join(runs, "wt1"));
		expect(readFileSync(join(wt.dir, "lines.txt"), "utf8")).toBe("ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n");
		writeFiles(wt.dir, { "lines.txt": "ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n" });
		writeFiles(repo, { "lines.txt": "ONE\nTWO\nthree\nfour\nfive\nsix\nseven\n" });
		const landed = await landWorktree(wt, join(runs, "patches"), "clean");
		expect(landed.status).toBe("applied");
		expect(readFileSync(join(repo, "lines.txt"), "utf8")).toBe("ONE\nTWO\nthree\nfour\nfive\nsix\nSEVEN\n");
		await removeWorktree(wt);

		const wt2 = await createWorktree(repo, join(runs, "wt2"));
		writeFiles(wt2.dir, { "other.txt": "child's\n" });
		writeFiles(repo, { "other.txt": "parent's\n" });
		const conflict = await landWorktree(wt2, join(runs, "patches"), "conflict");
		expect(conflict).toMatchObject({ status: "conflict", conflicts: ["other.txt"] });
		expect(readFileSync(conflict.patchPath ?? "(no patch)", "utf8")).toContain("+child's");
		await removeWorktree(wt2);

		expect(marked()).toBe("");
	});

	it("are blanked by name even when the name holds an equals sign, and a later config change is seen", async () => {
		const { repo, marked } = boobyTrappedRepo();
		// The first call lists the drivers and keeps the answer (the config is old enough to trust);
		// the repository then adds one under an awkward name.
		const minuteAgo = (Date.now() - 60_000) / 1000;
		utimesSync(join(repo, ".git", "config"), minuteAgo, minuteAgo);
		expect((await runGit(["status", "--porcelain"], { cwd: repo })).processes).toBe(2);
		expect((await runGit(["status", "--porcelain"], { cwd: repo })).processes).toBe(1);
		const odd = join(tempDir("pi-watchdog-prog-"), "odd");
		const oddMark = `${odd}.log`;
		writeFileSync(odd, `#!/bin/sh\necho odd >> '${oddMark}'\ncat\n`);
		chmodSync(odd, 0o755);
		git(repo, "config", "filter.a=b.clean", odd);
		writeFiles(repo, {
			".gitattributes": "* filter=trap merge=trap diff=trap\n*.txt filter=a=b\n",
			"lines.txt": "x\n",
		});
		const run = await runGit(["status", "--porcelain"], { cwd: repo });
		expect(run).toMatchObject({ code: 0, processes: 2 });
		await gitOk(["add", "-A"], { cwd: repo, env: { GIT_INDEX_FILE: join(tempDir("pi-watchdog-index-"), "index") } });
		expect(existsSync(oddMark)).toBe(false);
		expect(marked()).toBe("");
	});
});
