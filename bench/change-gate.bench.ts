// The change gate runs at the end of every agent run, so on a large repository its whole cost
// per run (start and end) must stay close to one plain `git status`, and a run of edits alone
// must cost a small fraction of one. Measures, in rotation in one run on a generated
// repository (50,000 tracked files, 250 dirty, 20 of them 1 MiB):
//   a) one `git status --porcelain=v1 -z --untracked-files=all`;
//   b) one steady-state edit-only run through the gate (beforeTool + afterTool + finish around
//      one edit, the agent's own write not timed): target ≤ 0.1 × a, no git process;
//   c) one steady-state mixed run: an edit, then a bash call that writes another file: ≤ 1.05 × a
//      (one git status is the floor of a run in which bash ran; decided in issue 29).
// Also checks that a run of read-only tools starts no git process at all.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChangeGate, type GateVerdict } from "../src/review/change-gate.ts";
import { median, min, ms, reportFailure, round } from "./stats.ts";
import { commitAll, git } from "./git-repo.ts";

const FOLDERS = 500;
const FILES_PER_FOLDER = 100;
const FILES = FOLDERS * FILES_PER_FOLDER;
const SMALL_DIRTY = 230;
const BIG_MODIFIED = 10; // tracked files rewritten to 1 MiB
const BIG_UNTRACKED = 10; // new untracked files of 1 MiB
const DIRTY = SMALL_DIRTY + BIG_MODIFIED + BIG_UNTRACKED;
const MiB = 1024 * 1024;
const ROUNDS = 41;
const WARM_ROUNDS = 2;
/** A mixed run (an edit, then bash): one git status and the hashing around it (that status is its floor). */
const TARGET = 1.05;
/** An edit-only run: no git process, only the touched file hashed twice. */
const EDIT_TARGET = 0.1;
const STATUS_ARGS = ["status", "--porcelain=v1", "-z", "--untracked-files=all"];

const ignore = (p: string) => /^(tmp|\.pi-subagents)\//.test(p) || /(^|\/)node_modules\//.test(p);

const folder = (i: number) => `pkg${String(i % 20).padStart(2, "0")}/mod${String(i).padStart(3, "0")}`;
const small = (f: number, i: number) => `${folder(f)}/file${String(i).padStart(3, "0")}.ts`;
const body = (tag: string) =>
	`// ${tag}\nexport const value = ${JSON.stringify(tag)};\n${"/* padding padding padding padding padding padding padding */\n".repeat(4)}`;
/** Different bytes every call, same size class. */
const bigBody = (seed: number) => Buffer.alloc(MiB, `big-${seed}-`);

/** 50,000 small tracked files, one commit, then 250 dirty files. Returns the small dirty paths. */
function generate(repo: string): string[] {
	for (let f = 0; f < FOLDERS; f++) {
		mkdirSync(join(repo, folder(f)), { recursive: true });
		for (let i = 0; i < FILES_PER_FOLDER; i++) writeFileSync(join(repo, small(f, i)), body(`${f}/${i}`));
	}
	commitAll(repo, "generated");
	// Dirty: 230 small tracked files modified, 10 tracked files grown to 1 MiB, 10 new untracked 1 MiB files.
	const smallDirty: string[] = [];
	for (let k = 0; k < SMALL_DIRTY; k++) {
		const path = small((k * 7) % FOLDERS, (k * 13) % FILES_PER_FOLDER);
		writeFileSync(join(repo, path), body(`dirty ${k}`));
		smallDirty.push(path);
	}
	for (let k = 0; k < BIG_MODIFIED; k++) writeFileSync(join(repo, small(FOLDERS - 1 - k, 99)), bigBody(k));
	for (let k = 0; k < BIG_UNTRACKED; k++) writeFileSync(join(repo, folder(k * 31), `blob${k}.bin`), bigBody(100 + k));
	// Settle the index once (a plain status refreshes it), so no racily-clean entries skew the first rounds.
	const listed = git(repo, ...STATUS_ARGS)
		.split("\0")
		.filter(Boolean).length;
	if (listed !== DIRTY) throw new Error(`generated repository has ${listed} dirty paths, expected ${DIRTY}`);
	return smallDirty;
}

function expectChanged(verdict: GateVerdict, paths: string[], via: GateVerdict["via"], what: string): void {
	if (!verdict.changed || verdict.via !== via || JSON.stringify(verdict.paths) !== JSON.stringify(paths)) {
		throw new Error(
			`${what}: expected a change of exactly ${paths.join(", ")} via ${via}, got ${JSON.stringify(verdict)}`,
		);
	}
}

const root = mkdtempSync(join(tmpdir(), "pi-watchdog-bench-gate-"));
const repo = join(root, "repo");
mkdirSync(repo);
try {
	const t = process.hrtime.bigint();
	const smallDirty = generate(repo);
	console.log(
		`generated ${FILES} tracked files (${FOLDERS} folders), ${DIRTY} dirty (${BIG_MODIFIED + BIG_UNTRACKED} of 1 MiB) in ${(ms(t) / 1000).toFixed(1)} s`,
	);

	const gate = new ChangeGate({ cwd: repo, ignore });
	if (!gate.git || !gate.repo) throw new Error("the gate did not find the generated repository");
	const processes = () => gate.git?.processes ?? 0;

	// One agent run through the gate; only the gate's own calls are timed, never the agent's writes.
	// "edit": edits alone (decided by hashing the touched file); "mixed": an edit, then a bash call.
	let edits = 0;
	async function agentRun(kind: "edit" | "mixed") {
		const path = smallDirty[edits % smallDirty.length];
		const other = smallDirty[(edits + 97) % smallDirty.length];
		const n = edits++;
		const p0 = processes();
		let gateMs = 0;
		const time = async <T>(fn: () => Promise<T> | T): Promise<T> => {
			const t0 = process.hrtime.bigint();
			const value = await fn();
			gateMs += ms(t0);
			return value;
		};
		await time(() => gate.beforeTool("edit", { path }));
		writeFileSync(join(repo, path), body(`agent edit ${n}`));
		await time(() => gate.afterTool("edit", { path }, false));
		if (kind === "mixed") {
			await time(() => gate.beforeTool("bash", { command: "sed -i …" }));
			writeFileSync(join(repo, other), body(`agent bash ${n}`));
			await time(() => gate.afterTool("bash", {}, false));
		}
		const t0 = process.hrtime.bigint();
		const verdict = await gate.finish();
		const finish = ms(t0);
		gateMs += finish;
		expectChanged(
			verdict,
			kind === "edit" ? [path] : [path, other].sort(),
			kind === "edit" ? "files" : "git",
			`${kind} run ${n}`,
		);
		return { total: gateMs, finish, processes: processes() - p0 };
	}
	function gitStatus(): number {
		const t0 = process.hrtime.bigint();
		execFileSync("git", STATUS_ARGS, { cwd: repo, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 * MiB });
		return ms(t0);
	}

	// First run of the session: a full snapshot with hashing at the start; not part of the per-run figures.
	const first = await agentRun("mixed");
	console.log(
		`first mixed run (full snapshot and hashing): ${first.total.toFixed(1)} ms, ${first.processes} git processes`,
	);

	for (let r = 0; r < WARM_ROUNDS; r++) {
		gitStatus();
		await agentRun("edit");
		await agentRun("mixed");
	}
	const statusMs: number[] = [];
	const editRuns: Awaited<ReturnType<typeof agentRun>>[] = [];
	const mixedRuns: Awaited<ReturnType<typeof agentRun>>[] = [];
	const steps = [
		() => statusMs.push(gitStatus()),
		async () => editRuns.push(await agentRun("edit")),
		async () => mixedRuns.push(await agentRun("mixed")),
	];
	for (let r = 0; r < ROUNDS; r++) {
		// Rotate which goes first, so drift (page cache, CPU clock) falls on all alike.
		for (let k = 0; k < steps.length; k++) await steps[(r + k) % steps.length]();
	}

	// A run of read-only tools: no git process at all.
	const p0 = processes();
	await gate.beforeTool("read", { path: "x" });
	gate.afterTool("read", { path: "x" }, false);
	const readOnly = await gate.finish();
	const readOnlyGitProcesses = processes() - p0;
	if (readOnly.changed || readOnly.via !== "none")
		throw new Error(`read-only run: unexpected verdict ${JSON.stringify(readOnly)}`);

	const perRun = (runs: { processes: number }[]) => Math.max(...runs.map((r) => r.processes));
	const editMs = editRuns.map((r) => r.total);
	const mixedMs = mixedRuns.map((r) => r.total);
	const editRatio = median(editMs) / median(statusMs);
	const mixedRatio = median(mixedMs) / median(statusMs);
	const editGitProcesses = perRun(editRuns);
	const mixedGitProcesses = perRun(mixedRuns);
	const pass =
		editRatio <= EDIT_TARGET &&
		mixedRatio <= TARGET &&
		readOnlyGitProcesses === 0 &&
		editGitProcesses === 0 &&
		mixedGitProcesses === 1;

	console.log(
		`git status --porcelain=v1 -z --untracked-files=all: median ${median(statusMs).toFixed(1)} ms, min ${min(statusMs).toFixed(1)} ms (${ROUNDS} rounds)`,
	);
	console.log(
		`gate, edit-only run:  median ${median(editMs).toFixed(2)} ms, min ${min(editMs).toFixed(2)} ms, ${editGitProcesses} git processes`,
	);
	console.log(
		`gate, mixed run:      median ${median(mixedMs).toFixed(1)} ms, min ${min(mixedMs).toFixed(1)} ms (finish ${median(mixedRuns.map((r) => r.finish)).toFixed(1)} ms), ${mixedGitProcesses} git process`,
	);
	console.log(`read-only run: ${readOnlyGitProcesses} git processes`);
	console.log(
		`ratio edit-only / git status: ${editRatio.toFixed(3)} (target ≤ ${EDIT_TARGET}); mixed / git status: ${mixedRatio.toFixed(3)} (target ≤ ${TARGET})`,
	);
	console.log(
		JSON.stringify({
			bench: "change-gate",
			ratio: round(mixedRatio, 3),
			target: TARGET,
			editOnlyRatio: round(editRatio, 3),
			editOnlyTarget: EDIT_TARGET,
			pass,
			editOnlyMedianMs: round(median(editMs), 3),
			mixedMedianMs: round(median(mixedMs)),
			mixedMinMs: round(min(mixedMs)),
			gitStatusMedianMs: round(median(statusMs)),
			gitStatusMinMs: round(min(statusMs)),
			firstRunMs: round(first.total),
			editOnlyGitProcesses: editGitProcesses,
			mixedGitProcesses,
			readOnlyGitProcesses,
			files: FILES,
			dirty: DIRTY,
			rounds: ROUNDS,
		}),
	);
	if (!pass) process.exitCode = 1;
} catch (error) {
	reportFailure("change-gate", TARGET, error);
} finally {
	rmSync(root, { recursive: true, force: true });
}
