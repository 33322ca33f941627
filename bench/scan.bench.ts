// `pi-watchdog scan` of a large session must take ≤ 0.5 × the time it takes just to read the file
// and JSON.parse every line: it judges lines before parsing them (noise lines skipped by a peek,
// a tool result's duplicated top-level text left unparsed). Measures, alternately in one run, on a generated pi-subagents
// transcript (format A of ../shared/sessions/README.md) of ~100 MB:
//   a) the baseline, a simple program: readFile(file, "utf8"), split on "\n", JSON.parse every
//      non-empty line. Reading the whole file at once is the fastest simple way to do it (a
//      readline stream is slower, so it would make the target easier); the file's reading is
//      part of the baseline because the scan has to read it too;
//   b) scanSession(file): reading, format detection, parsing, pairing calls with results, the
//      loop detector, the claims checker and the unfinished-stop detector.
// Also timed alongside, for information only: a readline baseline (createReadStream +
// readline + JSON.parse), and a stricter one that splits the bytes and decodes line by line
// (as the scan's LineReader does: a file with a few non-ASCII characters otherwise becomes one
// two-byte string, which makes the simple baseline slower). Then, fewer rounds, where the
// scan's time goes: reading lines (LineReader), + JSON.parse of the lines the parser parses,
// + pairing and records (all events), + the detectors; and, each alone over the events in memory,
// the loop detector (fed the records) and the claims and unfinished-stop checks (EvidenceScan).
//
// The transcript is bench/scan-transcript.ts's (the synthetic agent of bench/synthetic-calls.ts
// as a pi-subagents recorder writes it; line sizes follow the real dev transcripts). The
// temporary folder is removed at the end, also on failure or interruption.
import { createReadStream, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { LoopDetector } from "../src/loops/loop-detector.ts";
import { EvidenceScan } from "../src/evidence/index.ts";
import type { SessionEvent, ToolCallRecord } from "../src/transcript/tool-call.ts";
import { LineReader } from "../src/scan/line-reader.ts";
import { openSession } from "../src/scan/read-session.ts";
import { scanSession } from "../src/scan/scan-session.ts";
import { newStats } from "../src/transcript/pairing.ts";
import { asObject, parseJsonLine, parseToolResultLine, peekField } from "../src/scan/session-parser.ts";
import { generateTranscript } from "./scan-transcript.ts";
import { median, ms, reportFailure, round, scratchDir, timed } from "./stats.ts";

const TARGET_BYTES = 100_000_000;
const ROUNDS = 9;
const BREAKDOWN_ROUNDS = 5;
const TARGET = 0.5;

// ---- the measured programs ----

/** a) The simple program: the whole file as one string, split, parse each line. */
async function baselineReadFile(file: string): Promise<number> {
	const text = await readFile(file, "utf8");
	let parsed = 0;
	for (const line of text.split("\n")) {
		if (line.length === 0) continue;
		JSON.parse(line);
		parsed++;
	}
	return parsed;
}

/** Informational: the same with a readline stream. */
async function baselineReadline(file: string): Promise<number> {
	let parsed = 0;
	for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
		if (line.length === 0) continue;
		JSON.parse(line);
		parsed++;
	}
	return parsed;
}

/** Informational, stricter: split the bytes, decode each line on its own (ASCII lines stay one-byte strings), parse. */
async function baselineBytes(file: string): Promise<number> {
	const buf = await readFile(file);
	let parsed = 0;
	let start = 0;
	for (let nl = buf.indexOf(10); start < buf.length; nl = buf.indexOf(10, start)) {
		const end = nl === -1 ? buf.length : nl;
		if (end > start) {
			JSON.parse(buf.toString("utf8", start, end));
			parsed++;
		}
		start = end + 1;
	}
	return parsed;
}

async function scan(file: string): Promise<{ calls: number; signals: number; skipped: number }> {
	const report = await scanSession(file);
	return { calls: report.calls, signals: report.loop.signals.length, skipped: report.skippedLines };
}

// Breakdown stages.
async function readLines(file: string): Promise<number> {
	const reader = await LineReader.open(file);
	let n = 0;
	for (let lines = await reader.next(file); lines; lines = await reader.next(file)) n += lines.length;
	return n;
}

/** Reading plus parsing the lines as the pi-subagents parser does (others skipped by a peek, a tool result's copies of its text left unparsed). */
async function readAndParse(file: string): Promise<number> {
	const reader = await LineReader.open(file);
	const stats = newStats();
	let parsed = 0;
	for (let lines = await reader.next(file); lines; lines = await reader.next(file)) {
		for (const line of lines) {
			if (!line) continue;
			const kind = peekField(line, '"recordType":"');
			if (kind !== undefined && kind !== "message") continue;
			if (peekField(line, '"role":"') === "toolResult")
				parseToolResultLine(line, stats, true, (r) => asObject(r.message)?.role === "toolResult");
			else parseJsonLine(line, stats);
			parsed++;
		}
	}
	return parsed;
}

async function allEvents(file: string, keep?: SessionEvent[]): Promise<number> {
	const session = await openSession(file);
	let n = 0;
	for await (const event of session.events) {
		n++;
		keep?.push(event);
	}
	return n;
}

/** The claims checker and the unfinished-stop detector over the events in memory. */
function evidenceOnly(events: SessionEvent[]): number {
	const evidence = new EvidenceScan();
	for (const event of events) evidence.add(event);
	const { claims, idle } = evidence.finish();
	return claims.signals.length + (idle.flagged ? 1 : 0);
}

function detectorOnly(records: ToolCallRecord[]): number {
	const detector = new LoopDetector();
	let signals = 0;
	for (const r of records) signals += detector.add(r).length;
	return signals;
}

// ---- main ----

const { root, cleanup } = scratchDir("pi-watchdog-bench-scan-");
try {
	const file = join(root, "large_transcript.jsonl");
	let t = process.hrtime.bigint();
	const g = generateTranscript(file, TARGET_BYTES);
	const bytes = statSync(file).size;
	if (bytes !== g.bytes) throw new Error(`generated ${g.bytes} bytes but the file has ${bytes}`);
	const sizes = [...g.resultLineBytes].sort((a, b) => a - b);
	const pct = (p: number) => sizes[Math.min(sizes.length - 1, Math.floor(sizes.length * p))];
	console.log(
		`generated ${(bytes / 1e6).toFixed(1)} MB, ${g.lines} lines (${g.nonAsciiLines} with non-ASCII characters), ${g.turns} assistant turns, ${g.calls} tool calls in ${(ms(t) / 1000).toFixed(1)} s`,
	);
	console.log(
		`  toolResult line bytes: median ${pct(0.5)}, p90 ${pct(0.9)}, max ${sizes[sizes.length - 1]}, mean ${Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length)}`,
	);

	// Check both sides do what they should before timing them.
	const parsedLines = await baselineReadFile(file);
	if (parsedLines !== g.lines) throw new Error(`baseline parsed ${parsedLines} lines, expected ${g.lines}`);
	const first = await scan(file);
	if (first.calls !== g.calls || first.skipped !== 0)
		throw new Error(`scan found ${first.calls} calls (expected ${g.calls}), skipped ${first.skipped} lines`);
	await baselineReadline(file);
	await baselineBytes(file);

	const base: number[] = [];
	const scans: number[] = [];
	// CPU time of the process (all threads) beside the wall clock: on a shared machine the wall
	// clock swings with other work, CPU time much less.
	const cpu = new Map<number[], number[]>();
	const readline: number[] = [];
	const byLine: number[] = [];
	const order: Array<[number[], () => Promise<unknown>]> = [
		[base, () => baselineReadFile(file)],
		[scans, () => scan(file)],
		[readline, () => baselineReadline(file)],
		[byLine, () => baselineBytes(file)],
	];
	t = process.hrtime.bigint();
	for (let r = 0; r < ROUNDS; r++) {
		// Rotate which goes first, so drift (page cache, CPU clock, other load) falls on all alike.
		for (let k = 0; k < order.length; k++) {
			const [into, fn] = order[(k + r) % order.length];
			const used = process.cpuUsage();
			into.push((await timed(fn)).ms);
			const spent = process.cpuUsage(used);
			cpu.set(into, [...(cpu.get(into) ?? []), (spent.user + spent.system) / 1000]);
		}
	}
	const mainS = ms(t) / 1000;
	const ratio = median(scans) / median(base);
	const pairedRatio = median(scans.map((s, i) => s / base[i]));
	const baseCpu = cpu.get(base) ?? [];
	const scanCpu = cpu.get(scans) ?? [];
	const cpuRatio = median(scanCpu) / median(baseCpu);
	const pairedCpuRatio = median(scanCpu.map((s, i) => s / (baseCpu[i] as number)));
	const mbps = (msValue: number) => bytes / 1e6 / (msValue / 1000);

	// Where the scan's time goes (fewer rounds, alternated).
	const events: SessionEvent[] = [];
	await allEvents(file, events);
	const records = events.flatMap((e) => (e.type === "call" ? [e.call] : []));
	const parsedByScan = await readAndParse(file);
	const stages: Record<string, number[]> = { read: [], parse: [], events: [], scan: [], detector: [], evidence: [] };
	const stageFns: Array<[string, () => Promise<unknown> | unknown]> = [
		["read", () => readLines(file)],
		["parse", () => readAndParse(file)],
		["events", () => allEvents(file)],
		["scan", () => scan(file)],
		["detector", () => detectorOnly(records)],
		["evidence", () => evidenceOnly(events)],
	];
	for (let r = 0; r < BREAKDOWN_ROUNDS; r++)
		for (let k = 0; k < stageFns.length; k++) {
			const [name, fn] = stageFns[(k + r) % stageFns.length];
			stages[name].push((await timed(fn)).ms);
		}
	const st = Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, median(v)])) as Record<string, number>;
	const pass = ratio <= TARGET;

	console.log(
		`baseline readFile + split + JSON.parse every line: median ${median(base).toFixed(0)} ms (min ${Math.min(...base).toFixed(0)}), ${mbps(median(base)).toFixed(0)} MB/s, ${g.lines} lines parsed`,
	);
	console.log(
		`scanSession:                                       median ${median(scans).toFixed(0)} ms (min ${Math.min(...scans).toFixed(0)}), ${mbps(median(scans)).toFixed(0)} MB/s, ${first.calls} calls, ${first.signals} loop signals`,
	);
	console.log(
		`  for information: readline + JSON.parse median ${median(readline).toFixed(0)} ms (scan / it ${(median(scans) / median(readline)).toFixed(3)}); byte split + per-line decode + JSON.parse median ${median(byLine).toFixed(0)} ms (scan / it ${(median(scans) / median(byLine)).toFixed(3)})`,
	);
	console.log(
		`  paired per round: scan / baseline median ${pairedRatio.toFixed(3)}; ${ROUNDS} rounds in ${mainS.toFixed(1)} s`,
	);
	console.log(
		`  CPU time: baseline median ${median(baseCpu).toFixed(0)} ms, scan ${median(scanCpu).toFixed(0)} ms; ratio ${cpuRatio.toFixed(3)}, paired ${pairedCpuRatio.toFixed(3)}`,
	);
	console.log(
		`where the scan's time goes (medians of ${BREAKDOWN_ROUNDS}): reading lines ${st.read.toFixed(0)} ms; + JSON.parse of the ${parsedByScan} lines it parses (the other ${g.lines - parsedByScan} are skipped by a peek) ${(st.parse - st.read).toFixed(0)} ms; + parsing the messages, pairing, records ${(st.events - st.parse).toFixed(0)} ms; + detectors ${(st.scan - st.events).toFixed(0)} ms (alone over the ${records.length} records in memory: the loop detector ${st.detector.toFixed(0)} ms, ${((st.detector * 1e6) / records.length).toFixed(0)} ns per call; the claims and unfinished-stop checks over the ${events.length} events ${st.evidence.toFixed(0)} ms); whole scan ${st.scan.toFixed(0)} ms`,
	);
	console.log(`ratio scan / baseline: ${ratio.toFixed(3)} (target ≤ ${TARGET})`);
	console.log(
		JSON.stringify({
			bench: "scan",
			ratio: round(ratio, 3),
			target: TARGET,
			pass,
			scanMedianMs: round(median(scans), 0),
			baselineMedianMs: round(median(base), 0),
			pairedRatioMedian: round(pairedRatio, 3),
			scanCpuMedianMs: round(median(scanCpu), 0),
			baselineCpuMedianMs: round(median(baseCpu), 0),
			cpuRatio: round(cpuRatio, 3),
			pairedCpuRatioMedian: round(pairedCpuRatio, 3),
			scanMBps: round(mbps(median(scans)), 1),
			baselineMBps: round(mbps(median(base)), 1),
			ratioVsReadline: round(median(scans) / median(readline), 3),
			ratioVsPerLineDecode: round(median(scans) / median(byLine), 3),
			readMs: round(st.read, 0),
			parseMs: round(st.parse - st.read, 0),
			pairingMs: round(st.events - st.parse, 0),
			detectorMs: round(st.scan - st.events, 0),
			loopAloneMs: round(st.detector, 0),
			evidenceAloneMs: round(st.evidence, 0),
			bytes,
			lines: g.lines,
			calls: first.calls,
			signals: first.signals,
			rounds: ROUNDS,
		}),
	);
	if (!pass) process.exitCode = 1;
} catch (error) {
	reportFailure("scan", TARGET, error);
} finally {
	cleanup();
}
