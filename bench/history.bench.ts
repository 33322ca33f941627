// `history --since 24h` over a 50 MiB log must take ≤ 1.5 × the time it takes just to read the
// file and JSON.parse every line. Measures, alternately in one run, on a generated log of 30
// days (several projects, sessions of a few hours each; reviews, findings with their fates,
// resolved loops, failures and settings changes, written in the log's own line format):
//   a) the baseline: readFile(file, "utf8"), split on "\n", JSON.parse every non-empty line;
//   b) readHistory(dir, { since: 24 hours ago }): what `/subagents-watchdog history --since 24h`
//      reads (no limit, every project, so it returns every event of the last day).
// Also timed alongside, for information only: the command's default (this project, newest 20),
// `--since 7d`, and a filter that matches nothing (a session id that is not there), which has to
// look at every line of the file. The temporary folder is removed at the end, also on failure.
import { closeSync, mkdirSync, openSync, statSync, writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { eventLine, FINDING_FATES, type HistoryEventInput } from "../src/findings/history-event.ts";
import { HISTORY_FILE } from "../src/findings/history-log.ts";
import { readHistory } from "../src/findings/history-read.ts";
import { median, ms, reportFailure, round, scratchDir, timed } from "./stats.ts";
import { cap, int, pick, rng, VERBS, WORDS } from "./synthetic-vocab.ts";

const TARGET = 1.5;
const ROUNDS = 9;
const TARGET_BYTES = 50 * 1024 * 1024;
const DAY = 86_400_000;
const PROJECTS = [
	"/Users/dev/work/shop-api",
	"/Users/dev/work/shop-web",
	"/Users/dev/oss/pi-watchdog",
	"/srv/build/infra",
];
const MODELS = [
	["openai/gpt-5.5", "high"],
	["anthropic/claude-opus-4-8", "high"],
	["google/gemini-3-pro", "medium"],
] as const;
const SOURCES = ["main", "main", "main", "lsp", "loops", "claims", "worker", "scout"];
const CATEGORIES = [
	"correctness",
	"missed-constraint",
	"test-gap",
	"unsafe-change",
	"scope-drift",
	"loop-risk",
	"unbacked-claim",
	"other",
];

/**
 * Writes the log (or, without a file, only counts its lines); returns its size, line count and
 * the time it ends at. A line's size does not depend on its time, so a counting pass with the
 * same seed tells how far apart the events must be for 30 days to hold them.
 */
function generate(file: string | undefined, lineCount: number): { bytes: number; lines: number; end: number } {
	const r = rng(1010);
	const end = Date.now();
	const start = end - 30 * DAY;
	const words = (n: number) => Array.from({ length: n }, () => pick(r, WORDS)).join(" ");
	const fd = file ? openSync(file, "w") : undefined;
	let pending: string[] = [];
	let pendingBytes = 0;
	let bytes = 0;
	let lines = 0;
	const flush = () => {
		const chunk = Buffer.from(pending.join(""));
		if (fd !== undefined) writeSync(fd, chunk);
		bytes += chunk.length;
		pending = [];
		pendingBytes = 0;
	};
	let clock = start;
	const step = (30 * DAY) / lineCount;
	let session = "";
	let cwd = "";
	let sessionLeft = 0;
	try {
		while (bytes + pendingBytes < TARGET_BYTES) {
			if (sessionLeft-- <= 0) {
				session = `019${int(r, 0, 0xfffffff).toString(16).padStart(7, "0")}-${int(r, 0, 0xffff).toString(16)}-7${int(r, 0, 0xfff).toString(16)}`;
				cwd = pick(r, PROJECTS);
				sessionLeft = int(r, 50, 600);
			}
			clock += step * (0.5 + r());
			const event = randomEvent(r, session, cwd, words);
			const shaped = eventLine(event, new Date(Math.min(clock, end)));
			if (!shaped.ok) throw new Error(shaped.error);
			pending.push(shaped.line);
			pendingBytes += Buffer.byteLength(shaped.line);
			lines++;
			if (pendingBytes > 1 << 20) flush();
		}
		flush();
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
	return { bytes, lines, end };
}

function randomEvent(r: () => number, session: string, cwd: string, words: (n: number) => string): HistoryEventInput {
	const roll = r();
	const base = { session, cwd };
	if (roll < 0.3) {
		const [model, thinking] = pick(r, MODELS);
		const outcome = r() < 0.55 ? "clean" : r() < 0.85 ? "findings" : r() < 0.5 ? "failed" : "cancelled";
		return {
			...base,
			kind: "review",
			trigger: r() < 0.8 ? "boundary" : r() < 0.7 ? "cadence" : "command",
			model,
			thinking,
			durationMs: int(r, 4_000, 90_000),
			tokens: int(r, 3_000, 60_000),
			cost: round(r() * 0.3, 4),
			outcome,
			paths: int(r, 1, 25),
			...(r() < 0.1 ? { carriedOver: int(r, 1, 4) } : {}),
			...(outcome === "failed"
				? { failure: { kind: pick(r, ["timeout", "rate-limit", "auth"]), message: `the reviewer ${words(6)}` } }
				: {}),
		};
	}
	if (roll < 0.88) {
		const fn = `${pick(r, VERBS)}${cap(pick(r, WORDS))}`;
		return {
			...base,
			kind: "finding",
			source: pick(r, SOURCES),
			importance: pick(r, ["low", "medium", "high"] as const),
			severity: r() < 0.7 ? "concern" : "blocker",
			category: pick(r, CATEGORIES),
			summary: `${fn} ${words(int(r, 4, 14))}`,
			evidence: `src/${pick(r, WORDS)}/${fn}.ts:${int(r, 1, 400)} ${words(int(r, 10, 45))}`,
			fate: pick(r, FINDING_FATES),
		};
	}
	if (roll < 0.94)
		return {
			...base,
			kind: "loop-resolved",
			summary: `the repeated ${pick(r, ["read", "bash", "grep"])} of ${pick(r, WORDS)} ended: ${words(5)}`,
		};
	if (roll < 0.98)
		return { ...base, kind: "failure", what: pick(r, ["review", "lsp", "history"]), message: words(int(r, 5, 20)) };
	return {
		...base,
		kind: "config-change",
		by: r() < 0.5 ? "user" : "agent",
		outcome: pick(r, ["applied", "refused", "declined"]),
		change: `/subagents-watchdog session model ${pick(r, MODELS)[0]}`,
	};
}

async function baseline(file: string): Promise<number> {
	const text = await readFile(file, "utf8");
	let parsed = 0;
	for (const line of text.split("\n")) {
		if (!line) continue;
		JSON.parse(line);
		parsed++;
	}
	return parsed;
}

// ---- main ----

const { root, cleanup } = scratchDir("pi-watchdog-bench-history-");
try {
	const dir = join(root, "watchdog");
	mkdirSync(dir);
	const file = join(dir, HISTORY_FILE);
	let t = process.hrtime.bigint();
	const g = generate(file, generate(undefined, 1).lines);
	if (statSync(file).size !== g.bytes) throw new Error("the generated file is not the size written");
	console.log(
		`generated ${(g.bytes / 1024 / 1024).toFixed(1)} MiB, ${g.lines} events over 30 days in ${(ms(t) / 1000).toFixed(1)} s`,
	);

	const since24h = new Date(g.end - DAY);
	const since7d = new Date(g.end - 7 * DAY);
	// Check both sides do what they should before timing them: the reader finds exactly the
	// events a full parse finds.
	const all = (await readFile(file, "utf8"))
		.split("\n")
		.filter(Boolean)
		.map((l) => JSON.parse(l) as { at: string });
	if (all.length !== g.lines || (await baseline(file)) !== g.lines)
		throw new Error("the baseline did not parse every line");
	const expected = all.filter((e) => Date.parse(e.at) >= since24h.getTime()).length;
	const first = await readHistory(dir, { since: since24h });
	if (first.events.length !== expected || first.skipped !== 0)
		throw new Error(
			`readHistory found ${first.events.length} events of the last 24h (expected ${expected}), skipped ${first.skipped}`,
		);
	const nothing = await readHistory(dir, { session: "no-such-session" });
	if (nothing.events.length !== 0 || nothing.skipped !== 0)
		throw new Error("a filter matching nothing found something");

	const base: number[] = [];
	const day: number[] = [];
	const week: number[] = [];
	const latest: number[] = [];
	const none: number[] = [];
	const order: Array<[number[], () => Promise<unknown>]> = [
		[base, () => baseline(file)],
		[day, () => readHistory(dir, { since: since24h })],
		[week, () => readHistory(dir, { since: since7d })],
		[latest, () => readHistory(dir, { cwd: PROJECTS[0], limit: 20 })],
		[none, () => readHistory(dir, { session: "no-such-session" })],
	];
	t = process.hrtime.bigint();
	for (let r = 0; r < ROUNDS; r++) {
		// Rotate which goes first, so drift (page cache, CPU clock, other load) falls on all alike.
		for (let k = 0; k < order.length; k++) {
			const [into, fn] = order[(k + r) % order.length];
			into.push((await timed(fn)).ms);
		}
	}
	const ratio = median(day) / median(base);
	const pairedRatio = median(day.map((d, i) => d / base[i]));
	const pass = ratio <= TARGET;
	console.log(
		`baseline readFile + split + JSON.parse every line: median ${median(base).toFixed(0)} ms (min ${Math.min(...base).toFixed(0)}), ${g.lines} lines`,
	);
	console.log(
		`readHistory --since 24h:                           median ${median(day).toFixed(1)} ms (min ${Math.min(...day).toFixed(1)}), ${expected} events`,
	);
	console.log(
		`  for information: --since 7d ${median(week).toFixed(0)} ms (${round(median(week) / median(base), 3)}×); this project, newest 20 ${median(latest).toFixed(1)} ms (${round(median(latest) / median(base), 3)}×); a session that is not there (every line looked at) ${median(none).toFixed(0)} ms (${round(median(none) / median(base), 3)}×)`,
	);
	console.log(
		`  paired per round: readHistory / baseline median ${pairedRatio.toFixed(3)}; ${ROUNDS} rounds in ${(ms(t) / 1000).toFixed(1)} s`,
	);
	console.log(`ratio readHistory --since 24h / baseline: ${ratio.toFixed(3)} (target ≤ ${TARGET})`);
	console.log(
		JSON.stringify({
			bench: "history",
			ratio: round(ratio, 3),
			target: TARGET,
			pass,
			historyMedianMs: round(median(day), 1),
			baselineMedianMs: round(median(base), 0),
			pairedRatioMedian: round(pairedRatio, 3),
			events24h: expected,
			lines: g.lines,
			mebibytes: round(g.bytes / 1024 / 1024, 1),
			since7dRatio: round(median(week) / median(base), 3),
			newest20Ratio: round(median(latest) / median(base), 3),
			fullScanRatio: round(median(none) / median(base), 3),
		}),
	);
} catch (error) {
	reportFailure("history", TARGET, error);
} finally {
	cleanup();
}
