// A fleet pass over 1,000 Pi session files (~100 MB in all) must cost ≤ 1.5 × the simplest way
// to look at the same sessions' ends: for each file, read its last 64 KiB and JSON.parse every
// whole line. Measured alternately in one run (median of the rounds). The pass does more than
// that: lists the folder, reads each file through the guarded reader (links and file kinds
// checked), reads its first 8 KiB too (id, folder, first prompt), parses with scan's readers
// and runs the unfinished-stop detector and the claims checker on the tail. Memory is reported
// as the process's peak RSS. Both sides run WARM_ROUNDS times untimed first (the pass's code and
// its detectors' regexes are compiled as they warm up; `fleet watch` runs pass after pass); the
// first, cold pass is printed, and each side's CPU time beside its wall time (on a shared
// machine the wall clock counts other work too). Beside the ratio, not part of it: the guarded
// reads alone (each file's lstat, as the listing takes it, and its tail and head through the
// guarded reader, nothing parsed), the floor of any pass that reads through it.
//
// Sizes follow a long-tailed mix like real session folders: most files 20–200 KB, a tenth over
// 250 KB, the largest about 1.3 MB. Each file is a Pi session: header, model change, then turns
// of a user prompt, assistant tool calls with their results (results from 200 B to 40 KB) and a
// closing message that ends one of four ways (done, an announced step, a question, mid-run).
import { closeSync, lstatSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { runPass } from "../src/fleet/pass.ts";
import { TAIL_BYTES } from "../src/fleet/tail.ts";
import { readFileInRoot, realRoot } from "../src/util/index.ts";
import { median, ms, reportFailure, round, scratchDir } from "./stats.ts";
import { writeFleetSessions } from "./fleet-sessions.ts";

const FILES = 1000;
const TAIL = 64 * 1024;
const ROUNDS = Number(process.env.FLEET_ROUNDS ?? 15);
/** Untimed rounds first: on two cores the pass takes about five to reach its compiled speed. */
const WARM_ROUNDS = 5;
const TARGET = 1.5;

function cpuMs(): number {
	const used = process.cpuUsage();
	return (used.user + used.system) / 1000;
}

function baseline(files: string[]): number {
	let parsed = 0;
	const buf = Buffer.allocUnsafe(TAIL);
	for (const file of files) {
		const fd = openSync(file, "r");
		const size = statSync(file).size;
		const from = Math.max(0, size - TAIL);
		const n = readSync(fd, buf, 0, Math.min(TAIL, size), from);
		closeSync(fd);
		const lines = buf.toString("utf8", 0, n).split("\n");
		if (from > 0) lines.shift();
		for (const line of lines) {
			if (!line) continue;
			try {
				JSON.parse(line);
				parsed++;
			} catch {
				// a cut line
			}
		}
	}
	return parsed;
}

function guardedReads(files: string[], root: string): void {
	const real = realRoot(root);
	for (const file of files)
		readFileInRoot(file, {
			root,
			realRoot: real,
			listed: lstatSync(file),
			maxBytes: TAIL_BYTES,
			overLimit: "tail",
			headBytes: 8 * 1024,
			hash: false,
		});
}

async function main(): Promise<void> {
	const scratch = scratchDir("fleet-bench-");
	try {
		const agentDir = join(scratch.root, "agent");
		const dir = join(agentDir, "sessions", "--bench--");
		mkdirSync(dir, { recursive: true });
		const { files, total } = writeFleetSessions(dir, FILES);
		const sorted = files.map((f) => statSync(f).size).sort((a, b) => a - b);
		console.log(
			`${FILES} files, ${round(total / 1e6, 1)} MB; sizes median ${round(sorted[FILES / 2] / 1e3)} KB, ` +
				`p90 ${round(sorted[Math.floor(FILES * 0.9)] / 1e3)} KB, max ${round(sorted[FILES - 1] / 1e6, 1)} MB`,
		);
		const times = { stallMs: 0, dormantMs: 86_400_000 };
		let t = process.hrtime.bigint();
		let cold = 0;
		for (let warm = 0; warm < WARM_ROUNDS; warm++) {
			baseline(files);
			t = process.hrtime.bigint();
			runPass({ agentDir, claudeDir: false, times, env: {} });
			if (warm === 0) cold = ms(t);
			guardedReads(files, dir);
		}
		const base: number[] = [];
		const pass: number[] = [];
		const floor: number[] = [];
		let rss = 0;
		let states = "";
		// CPU time beside the wall time: on a shared machine the wall clock also counts other work.
		const cpu = { base: [] as number[], pass: [] as number[] };
		for (let round_ = 0; round_ < ROUNDS; round_++) {
			let c = cpuMs();
			t = process.hrtime.bigint();
			baseline(files);
			base.push(ms(t));
			cpu.base.push(cpuMs() - c);
			c = cpuMs();
			t = process.hrtime.bigint();
			const result = runPass({ agentDir, claudeDir: false, times, env: {} });
			pass.push(ms(t));
			cpu.pass.push(cpuMs() - c);
			rss = Math.max(rss, process.memoryUsage().rss);
			t = process.hrtime.bigint();
			guardedReads(files, dir);
			floor.push(ms(t));
			const counts: Record<string, number> = {};
			for (const s of result.sessions) counts[s.state] = (counts[s.state] ?? 0) + 1;
			states = JSON.stringify(counts);
		}
		const ratio = median(pass) / median(base);
		console.log(`baseline (last 64 KiB + JSON.parse): median ${round(median(base))} ms`);
		console.log(
			`fleet pass: median ${round(median(pass))} ms (the first, cold one ${round(cold)} ms); states ${states}`,
		);
		console.log(
			`guarded reads alone (tail and head, nothing parsed): median ${round(median(floor))} ms ` +
				`(${round(median(floor) / median(base))}× the baseline)`,
		);
		const cpuRatio = median(cpu.pass) / median(cpu.base);
		console.log(
			`CPU time (the process's): baseline ${round(median(cpu.base))} ms, pass ${round(median(cpu.pass))} ms, ` +
				`${round(cpuRatio)}×`,
		);
		console.log(`peak RSS ${round(rss / 1e6, 1)} MB`);
		console.log(
			JSON.stringify({
				bench: "fleet",
				ratio: round(ratio),
				target: TARGET,
				pass: ratio <= TARGET,
				rssMB: round(rss / 1e6, 1),
				cpuRatio: round(cpuRatio),
				coldPassMs: round(cold),
				guardedReadsRatio: round(median(floor) / median(base)),
			}),
		);
	} catch (error) {
		reportFailure("fleet", TARGET, error);
	} finally {
		scratch.cleanup();
	}
}

await main();
