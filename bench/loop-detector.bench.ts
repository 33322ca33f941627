// The loop detector sees every tool call, so its cost per call must not grow with the session:
// time per call over a 100,000-call session ≤ 1.5 × over a 1,000-call session, and memory
// bounded by the window, not the session length.
//
// Time: one synthetic stream (bench/synthetic-calls.ts: reads of many files at varying offsets,
// test runs with identical and changing output, greps, polls, cycles, edits that land and
// edits that fail, commits; long stretches of thousands of calls where nothing lands) turned
// into ToolCallRecords in memory the way the live watchdog makes them (fromPiToolCall, so
// results are cut to RESULT_CHARS). The 1,000-call session is the first 1,000 calls of the
// 100,000-call one. Alternately in one run: a batch of 1,000-call sessions and one
// 100,000-call session, each on a fresh detector; ns per add() averaged over the whole
// session; medians over the rounds.
//
// Memory: in a child process started with --expose-gc, the same stream is made lazily (each
// record is garbage once fed, so whatever the detector keeps of it is counted) into a fresh
// detector, N calls; then heapUsed after a full GC with the detector alive, minus heapUsed
// after a full GC right after dropping it (paired, so unrelated heap drift cancels out; the
// figures repeat to within a few KiB). N = 1,000, 10,000, 20,000, …, 100,000, each its own pass.
// The stream is made so that 1k, 10k and 100k lie deep in stretches without a landing (a
// landing resets the detector and would hide growth). Bound: the 100k figure, and every
// checkpoint from 10k on, ≤ 1.5 × the 10k figure + 256 KiB.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { LoopDetector } from "../src/loops/loop-detector.ts";
import type { ToolCallRecord } from "../src/transcript/tool-call.ts";
import { fromPiToolCall } from "../src/transcript/call-record.ts";
import { callStream, type StreamOptions } from "./synthetic-calls.ts";
import { median, reportFailure, round } from "./stats.ts";

const LONG = 100_000;
const SHORT = 1_000;
const MID = 10_000;
const SHORT_PER_ROUND = 25; // 1,000-call sessions per round, so each round's figure covers 25,000 calls
const ROUNDS = 15;
const TARGET = 1.5;
const MEM_FACTOR = 1.5;
const MEM_SLACK_KIB = 256;
/** Where the detector's retained size is measured (each from a fresh pass over the stream). */
const CHECKPOINTS = [SHORT, MID, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000, LONG];
const KINDS = ["repeat", "rerun", "target", "stale", "dominant", "reread", "cycle"];
/** Nothing lands in these stretches; they hold the memory checkpoints 1k, 10k and 100k. */
const STREAM: StreamOptions = {
	seed: 1,
	firstWork: 150,
	stuckZones: [
		[150, 1100],
		[6500, 10300],
		[94000, 100100],
	],
};
const WARM_STREAM: StreamOptions = { seed: 2, firstWork: 150 };

function* records(opts: StreamOptions, n: number): Generator<ToolCallRecord, void, unknown> {
	const stream = callStream(opts);
	for (let i = 0; i < n; i++) {
		const c = stream.next().value;
		yield fromPiToolCall(i, c.name, c.args, [{ type: "text", text: c.text }], c.isError, c.details);
	}
}

interface MemoryResult {
	checkpoints: Array<{ calls: number; kib: number; callsSinceLanding: number }>;
}

function heapAfterGc(): number {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error("the memory child needs --expose-gc");
	gc();
	gc();
	return process.memoryUsage().heapUsed;
}

/** Compiles and optimises the detector's code, so that code is not counted as its state (its own frame, so nothing of it stays reachable). */
function warmUp(): void {
	const warm = new LoopDetector();
	for (const r of records(WARM_STREAM, 20_000)) warm.add(r);
}

/** The detector's retained size after n calls: heap with it alive minus heap right after dropping it. */
function retainedAfter(n: number): { bytes: number; callsSinceLanding: number } {
	const stream = records(STREAM, n);
	let detector: LoopDetector | undefined = new LoopDetector();
	for (const r of stream) detector.add(r);
	const callsSinceLanding = detector.snapshot().callsSinceLanding;
	const alive = heapAfterGc();
	detector = undefined;
	const gone = heapAfterGc();
	return { bytes: alive - gone, callsSinceLanding };
}

/** Runs in the child (--expose-gc): the detector's retained size at each checkpoint, each from a pass of its own. */
function memoryChild(): void {
	warmUp();
	const checkpoints = CHECKPOINTS.map((n) => {
		const r = retainedAfter(n);
		return { calls: n, kib: round(r.bytes / 1024, 1), callsSinceLanding: r.callsSinceLanding };
	});
	console.log(JSON.stringify({ checkpoints } satisfies MemoryResult));
}

/** One session on a fresh detector; ns per segment of `segment` calls. */
function session(calls: ToolCallRecord[], segment: number): { ns: number; segments: number[]; signals: number } {
	const detector = new LoopDetector();
	const segments: number[] = [];
	let signals = 0;
	const start = process.hrtime.bigint();
	let t = start;
	for (let from = 0; from < calls.length; from += segment) {
		const to = Math.min(calls.length, from + segment);
		for (let i = from; i < to; i++) signals += detector.add(calls[i]).length;
		const now = process.hrtime.bigint();
		segments.push(Number(now - t));
		t = now;
	}
	return { ns: Number(t - start), segments, signals };
}

/** What the stream makes the detector do (untimed): signals by kind, landings, stretches without one. */
function coverage(calls: ToolCallRecord[]) {
	const detector = new LoopDetector();
	const signals: Record<string, number> = Object.fromEntries(KINDS.map((k) => [k, 0]));
	let landings = 0;
	let stretch = 0;
	let longest = 0;
	let longStretches = 0;
	for (const c of calls) {
		for (const s of detector.add(c)) signals[s.kind] = (signals[s.kind] ?? 0) + 1;
		if (detector.snapshot().callsSinceLanding === 0) {
			landings++;
			if (stretch >= 1000) longStretches++;
			longest = Math.max(longest, stretch);
			stretch = 0;
		} else stretch++;
	}
	if (stretch >= 1000) longStretches++;
	longest = Math.max(longest, stretch);
	const kinds: Record<string, number> = {};
	for (const c of calls) kinds[c.kind] = (kinds[c.kind] ?? 0) + 1;
	const share = Object.fromEntries(Object.entries(kinds).map(([k, n]) => [k, round((100 * n) / calls.length, 1)]));
	return { signals, landings, longest, longStretches, share };
}

function main(): void {
	// Memory first, in its own process, while nothing else of ours runs.
	const child = spawnSync(
		process.execPath,
		["--expose-gc", "--experimental-strip-types", "--no-warnings", fileURLToPath(import.meta.url), "--memory-child"],
		{ encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 16 << 20 },
	);
	if (child.status !== 0) throw new Error(`memory child failed (exit ${child.status}): ${child.stderr.slice(-2000)}`);
	const memory = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "") as MemoryResult;
	const at = (n: number) => {
		const c = memory.checkpoints.find((x) => x.calls === n);
		if (!c) throw new Error(`no memory checkpoint at ${n}`);
		return c;
	};
	const mem1k = at(SHORT);
	const mem10k = at(MID);
	const mem100k = at(LONG);
	const bound = MEM_FACTOR * mem10k.kib + MEM_SLACK_KIB;
	const later = memory.checkpoints.filter((c) => c.calls >= MID);
	const peak = later.reduce((a, b) => (b.kib > a.kib ? b : a));
	const memoryPass = mem100k.kib <= bound && peak.kib <= bound;

	let t = process.hrtime.bigint();
	const calls = [...records(STREAM, LONG)];
	const short = calls.slice(0, SHORT); // the same records
	const lengths = calls.map((c) => c.result.length).sort((a, b) => a - b);
	console.log(
		`generated ${LONG} calls in ${(Number(process.hrtime.bigint() - t) / 1e9).toFixed(1)} s; result length median ${lengths[LONG >> 1]}, p90 ${lengths[Math.floor(LONG * 0.9)]}, max ${lengths[LONG - 1]} chars`,
	);
	const cov = coverage(calls);
	const covShort = coverage(short);
	console.log(`call kinds (% of calls), 100k: ${JSON.stringify(cov.share)}`);
	console.log(`call kinds (% of calls),   1k: ${JSON.stringify(covShort.share)}`);
	console.log(
		`signals over 100k: ${JSON.stringify(cov.signals)}; landings (resets) ${cov.landings}, ${cov.longStretches} stretches of ≥ 1,000 calls without one, longest ${cov.longest}`,
	);
	console.log(
		`signals over   1k: ${JSON.stringify(covShort.signals)}; landings ${covShort.landings}, longest stretch ${covShort.longest}`,
	);
	const allKinds = KINDS.every((k) => cov.signals[k] > 0);

	// Warm up both (JIT, and V8 flattening the cut result strings once).
	session(calls, MID);
	for (let k = 0; k < SHORT_PER_ROUND; k++) session(short, SHORT);

	const shortNs: number[] = [];
	const longNs: number[] = [];
	const deciles: number[][] = Array.from({ length: LONG / MID }, () => []);
	const runShort = () => {
		let ns = 0;
		for (let k = 0; k < SHORT_PER_ROUND; k++) ns += session(short, SHORT).ns;
		shortNs.push(ns / (SHORT_PER_ROUND * SHORT));
	};
	const runLong = () => {
		const s = session(calls, MID);
		longNs.push(s.ns / LONG);
		s.segments.forEach((ns, i) => {
			deciles[i].push(ns / MID);
		});
	};
	t = process.hrtime.bigint();
	for (let r = 0; r < ROUNDS; r++) {
		if (r % 2 === 0) {
			runShort();
			runLong();
		} else {
			runLong();
			runShort();
		}
	}
	const timedS = Number(process.hrtime.bigint() - t) / 1e9;
	const perShort = median(shortNs);
	const perLong = median(longNs);
	const ratio = perLong / perShort;
	const pass = ratio <= TARGET && memoryPass && allKinds;

	console.log(
		`per add(), 1,000-call sessions:   median ${perShort.toFixed(0)} ns (min ${Math.min(...shortNs).toFixed(0)}, max ${Math.max(...shortNs).toFixed(0)}; ${ROUNDS} rounds of ${SHORT_PER_ROUND} sessions)`,
	);
	console.log(
		`per add(), 100,000-call session:  median ${perLong.toFixed(0)} ns (min ${Math.min(...longNs).toFixed(0)}, max ${Math.max(...longNs).toFixed(0)}; ${ROUNDS} rounds)`,
	);
	console.log(
		`  by 10,000-call decile of the long session (median ns): ${deciles.map((d) => median(d).toFixed(0)).join(", ")}`,
	);
	console.log(`  timed part took ${timedS.toFixed(1)} s`);
	console.log(
		`retained by the detector (heap after full GC): ${mem1k.kib} KiB at 1k calls (${mem1k.callsSinceLanding} since landing), ${mem10k.kib} KiB at 10k (${mem10k.callsSinceLanding}), ${mem100k.kib} KiB at 100k (${mem100k.callsSinceLanding})`,
	);
	console.log(
		`  all checkpoints (KiB, calls since landing): ${memory.checkpoints.map((c) => `${c.calls / 1000}k ${c.kib} (${c.callsSinceLanding})`).join(", ")}`,
	);
	console.log(
		`  bound ${MEM_FACTOR} × 10k + ${MEM_SLACK_KIB} KiB = ${bound.toFixed(1)} KiB; peak from 10k on ${peak.kib} KiB at ${peak.calls}: ${memoryPass ? "within" : "EXCEEDED"}`,
	);
	console.log(
		`ratio per-call 100k / 1k: ${ratio.toFixed(3)} (target ≤ ${TARGET})${allKinds ? "" : "; NOT every signal kind fired: the stream is invalid"}`,
	);
	console.log(
		JSON.stringify({
			bench: "loop-detector",
			ratio: round(ratio, 3),
			target: TARGET,
			pass,
			nsPerCall1k: round(perShort, 0),
			nsPerCall100k: round(perLong, 0),
			memKiB1k: mem1k.kib,
			memKiB10k: mem10k.kib,
			memKiB100k: mem100k.kib,
			memPeakKiBFrom10k: peak.kib,
			memBoundKiB: round(bound, 1),
			memoryPass,
			allSignalKinds: allKinds,
			landings: cov.landings,
			longestStretchWithoutLanding: cov.longest,
			rounds: ROUNDS,
		}),
	);
	if (!pass) process.exitCode = 1;
}

if (process.argv.includes("--memory-child")) memoryChild();
else {
	try {
		main();
	} catch (error) {
		reportFailure("loop-detector", TARGET, error);
	}
}
