// The change gate runs at the end of every agent run, so on a large repository its whole cost
// per run (start and end) must stay close to one plain `git status`. Measures, alternately in
// one run on a generated repository (50,000 tracked files, 250 dirty, 20 of them 1 MiB):
//   a) one `git status --porcelain=v1 -z --untracked-files=all`;
//   b) one steady-state mutating run through the gate: beforeTool + afterTool + finish, with the
//      agent's own write in between (not timed).
// Also checks that a run of read-only tools starts no git process at all.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChangeGate, type GateVerdict } from "../src/review/change-gate.ts";
import { median, min, ms, reportFailure, round } from "./stats.ts";

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
const TARGET = 1.2;
const STATUS_ARGS = ["status", "--porcelain=v1", "-z", "--untracked-files=all"];

const ignore = (p: string) => /^(tmp|\.pi-subagents)\//.test(p) || /(^|\/)node_modules\//.test(p);


function git(cwd: string, ...args: string[]): string {
	return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 * MiB });
}

const folder = (i: number) => `pkg${String(i % 20).padStart(2, "0")}/mod${String(i).padStart(3, "0")}`;
const small = (f: number, i: number) => `${folder(f)}/file${String(i).padStart(3, "0")}.ts`;
const body = (tag: string) => `// ${tag}\nexport const value = ${JSON.stringify(tag)};\n${"/* padding padding padding padding padding padding padding */\n".repeat(4)}`;
/** Different bytes every call, same size class. */
const bigBody = (seed: number) => Buffer.alloc(MiB, `big-${seed}-`);

/** 50,000 small tracked files, one commit, then 250 dirty files. Returns the small dirty paths. */
function generate(repo: string): string[] {
	for (let f = 0; f < FOLDERS; f++) {
		mkdirSync(join(repo, folder(f)), { recursive: true });
		for (let i = 0; i < FILES_PER_FOLDER; i++) writeFileSync(join(repo, small(f, i)), body(`${f}/${i}`));
	}
	git(repo, "init", "-q", "-b", "main");
	git(repo, "config", "user.email", "bench@example.com");
	git(repo, "config", "user.name", "Bench");
	git(repo, "config", "commit.gpgsign", "false");
	git(repo, "add", "-A");
	git(repo, "commit", "-q", "--no-verify", "-m", "generated");
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
	const listed = git(repo, ...STATUS_ARGS).split("\0").filter(Boolean).length;
	if (listed !== DIRTY) throw new Error(`generated repository has ${listed} dirty paths, expected ${DIRTY}`);
	return smallDirty;
}

function expectChanged(verdict: GateVerdict, path: string, what: string): void {
	if (!verdict.changed || verdict.via !== "git" || !verdict.paths.includes(path) || verdict.paths.length !== 1) {
		throw new Error(`${what}: expected a change of exactly ${path}, got ${JSON.stringify(verdict)}`);
	}
}

const root = mkdtempSync(join(tmpdir(), "pi-watchdog-bench-gate-"));
const repo = join(root, "repo");
mkdirSync(repo);
try {
	let t = process.hrtime.bigint();
	const smallDirty = generate(repo);
	console.log(`generated ${FILES} tracked files (${FOLDERS} folders), ${DIRTY} dirty (${BIG_MODIFIED + BIG_UNTRACKED} of 1 MiB) in ${(ms(t) / 1000).toFixed(1)} s`);

	const gate = new ChangeGate({ cwd: repo, ignore });
	if (!gate.git || !gate.repo) throw new Error("the gate did not find the generated repository");
	const processes = () => gate.git?.processes ?? 0;

	// One agent run through the gate; only the gate's own calls are timed.
	let edits = 0;
	async function agentRun() {
		const path = smallDirty[edits % smallDirty.length];
		const content = body(`agent edit ${edits++}`);
		const p0 = processes();
		let t0 = process.hrtime.bigint();
		await gate.beforeTool("bash");
		const before = ms(t0);
		writeFileSync(join(repo, path), content); // the agent's change, not timed
		t0 = process.hrtime.bigint();
		gate.afterTool("bash", {}, false);
		const after = ms(t0);
		t0 = process.hrtime.bigint();
		const verdict = await gate.finish();
		const finish = ms(t0);
		expectChanged(verdict, path, `run ${edits}`);
		return { total: before + after + finish, before, after, finish, processes: processes() - p0 };
	}
	function gitStatus(): number {
		const t0 = process.hrtime.bigint();
		execFileSync("git", STATUS_ARGS, { cwd: repo, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 * MiB });
		return ms(t0);
	}

	// First run of the session: a full snapshot with hashing at the start; not part of the per-run figure.
	const first = await agentRun();
	console.log(`first run (full snapshot and hashing): ${first.total.toFixed(1)} ms (start ${first.before.toFixed(1)}, end ${first.finish.toFixed(1)}), ${first.processes} git processes`);

	for (let r = 0; r < WARM_ROUNDS; r++) {
		gitStatus();
		await agentRun();
	}
	const statusMs: number[] = [];
	const runs: Awaited<ReturnType<typeof agentRun>>[] = [];
	for (let r = 0; r < ROUNDS; r++) {
		// Alternate which goes first, so drift (page cache, CPU clock) falls on both alike.
		if (r % 2 === 0) {
			statusMs.push(gitStatus());
			runs.push(await agentRun());
		} else {
			runs.push(await agentRun());
			statusMs.push(gitStatus());
		}
	}

	// A run of read-only tools: no git process at all.
	const p0 = processes();
	await gate.beforeTool("read");
	gate.afterTool("read", { path: "x" }, false);
	const readOnly = await gate.finish();
	const readOnlyGitProcesses = processes() - p0;
	if (readOnly.changed || readOnly.via !== "none") throw new Error(`read-only run: unexpected verdict ${JSON.stringify(readOnly)}`);

	const gateMs = runs.map((r) => r.total);
	const perRun = [...new Set(runs.map((r) => r.processes))];
	const gitProcessesPerRun = perRun.length === 1 ? perRun[0] : Math.max(...perRun);
	const ratio = median(gateMs) / median(statusMs);
	// Paired within each round: what the gate costs beyond the git status it runs.
	const overheadMs = median(gateMs.map((g, i) => g - statusMs[i]));
	const pairedRatio = median(gateMs.map((g, i) => g / statusMs[i]));
	const pass = ratio <= TARGET && readOnlyGitProcesses === 0;

	console.log(`git status --porcelain=v1 -z --untracked-files=all: median ${median(statusMs).toFixed(1)} ms, min ${min(statusMs).toFixed(1)} ms (${ROUNDS} rounds)`);
	console.log(`gate, one steady-state run:     median ${median(gateMs).toFixed(1)} ms, min ${min(gateMs).toFixed(1)} ms`);
	console.log(
		`  of which beforeTool median ${median(runs.map((r) => r.before)).toFixed(2)} ms, afterTool ${median(runs.map((r) => r.after)).toFixed(3)} ms, finish ${median(runs.map((r) => r.finish)).toFixed(1)} ms`,
	);
	console.log(`  paired per round: gate minus git status median ${overheadMs.toFixed(1)} ms, gate / git status median ${pairedRatio.toFixed(3)}`);
	console.log(`git processes per steady-state run: ${perRun.join(", ")}; read-only run: ${readOnlyGitProcesses}`);
	console.log(`ratio gate / git status: ${ratio.toFixed(3)} (target ≤ ${TARGET})`);
	console.log(
		JSON.stringify({
			bench: "change-gate",
			ratio: round(ratio, 3),
			target: TARGET,
			pass,
			gateMedianMs: round(median(gateMs)),
			gateMinMs: round(min(gateMs)),
			gitStatusMedianMs: round(median(statusMs)),
			gitStatusMinMs: round(min(statusMs)),
			beforeToolMedianMs: round(median(runs.map((r) => r.before))),
			finishMedianMs: round(median(runs.map((r) => r.finish))),
			overheadMedianMs: round(overheadMs),
			pairedRatioMedian: round(pairedRatio, 3),
			firstRunMs: round(first.total),
			gitProcessesPerRun,
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
