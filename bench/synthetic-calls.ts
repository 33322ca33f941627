// Synthetic but realistic streams of coding-agent tool calls, for the benchmarks (not a benchmark
// itself: run.mjs only runs *.bench.ts). Deterministic for a seed, and lazy: calls are made one
// at a time, so a stream of any length costs no memory beyond the call in hand.
//
// The agent works on a TypeScript repository of a few hundred files. It alternates between
// phases of work, where edits land and commits go in every few dozen calls, and long stuck
// phases (thousands of calls) where nothing lands: chunked reads of new files, re-reads of the
// same ranges, test runs whose failure does not change (timestamps and durations do), polls
// that answer the same thing, A-B cycles, one command hammered, edits that fail or change
// nothing, `git commit` with nothing to commit. Tool names and results follow Pi's tools
// (read, bash, grep, find, ls, edit, write) and pi-subagents (subagent/intercom), plus
// BashOutput polls; outputs are full tool outputs (a read can be 50 KB), not yet cut to the
// RESULT_CHARS a recorder keeps.

import {
	cap,
	DIRS,
	int,
	type Phase,
	pick,
	PROSE,
	type RepoFile,
	rng,
	ROOT,
	VERBS,
	type Vocab,
	vocabulary,
	WORDS,
} from "./synthetic-vocab.ts";

export interface RawCall {
	name: string;
	args: Record<string, unknown>;
	/** The tool's whole text output. */
	text: string;
	isError: boolean;
	/** Pi's `details` (edit diff, bash truncation), when the tool gives them. */
	details?: Record<string, unknown>;
}

export interface StreamOptions {
	seed: number;
	/** Calls at the start that are a work phase (then the schedule takes over). */
	firstWork?: number;
	/** [from, to) call indices that are forced to be stuck (nothing lands there). */
	stuckZones?: Array<[number, number]>;
	/** Length ranges of the phases [min, max]. */
	workLength?: [number, number];
	stuckLength?: [number, number];
}

class Agent {
	private r: () => number;
	private v: Vocab;
	private files: RepoFile[];
	private tests: string[];
	private opts: Required<StreamOptions>;
	private phases: Phase[] = [];
	index = 0;
	private clock = 1_783_800_000_000;
	private failing = new Map<string, number>();
	private dirty = new Set<string>();
	private commits = 0;
	private shells = 0;
	private progress = 0;
	private hot: RepoFile[] = [];

	constructor(opts: StreamOptions) {
		this.opts = { firstWork: 200, stuckZones: [], workLength: [200, 900], stuckLength: [1500, 6000], ...opts };
		this.r = rng(opts.seed);
		this.v = vocabulary(opts.seed);
		const r = this.r;
		this.files = Array.from({ length: 320 }, (_, i) => {
			const dir = DIRS[i % DIRS.length];
			const name = `${pick(r, WORDS)}-${pick(r, WORDS)}${i}`;
			const test = i % 5 === 4;
			const rel = test ? `test/${dir}/${name}.test.ts` : `src/${dir}/${name}.ts`;
			// log-uniform 40–1800 lines
			return {
				path: `${ROOT}/${rel}`,
				rel,
				lines: Math.round(40 * 45 ** r()),
				seed: int(r, 0, 1 << 30),
				unicode: r() < 0.08,
			};
		});
		this.tests = this.files.filter((f) => f.rel.startsWith("test/")).map((f) => f.rel);
		for (const t of this.tests) this.failing.set(t, r() < 0.3 ? int(r, 1, 4) : 0);
		this.hot = this.files.slice(0, 12);
		this.phases.push({ end: this.opts.firstWork, stuck: false });
	}

	/** Whether a call at index i is in a stuck phase (nothing lands). */
	stuck(i: number): boolean {
		for (const [a, b] of this.opts.stuckZones) if (i >= a && i < b) return true;
		while (this.phases[this.phases.length - 1].end <= i) {
			const last = this.phases[this.phases.length - 1];
			const [lo, hi] = last.stuck ? this.opts.workLength : this.opts.stuckLength;
			this.phases.push({ end: last.end + int(this.r, lo, hi), stuck: !last.stuck });
		}
		if (this.phases.length > 4) this.phases.splice(0, this.phases.length - 4);
		for (const p of this.phases) if (i < p.end) return p.stuck;
		return false;
	}

	/** The next episode: a few calls that belong together. */
	episode(): RawCall[] {
		const stuck = this.stuck(this.index);
		const r = this.r;
		const calls: RawCall[] = [];
		const add = (c: RawCall) => {
			calls.push(c);
			this.index++;
			this.clock += int(r, 800, 40_000);
		};
		const w = r();
		if (!stuck) {
			if (w < 0.24) this.explore(add);
			else if (w < 0.38) this.greps(add, false);
			else if (w < 0.5) this.misc(add);
			else if (w < 0.61) this.testRuns(add, false);
			else if (w < 0.73) this.edit(add, true);
			else if (w < 0.76) this.edit(add, false);
			else if (w < 0.81) this.polls(add, false);
			else if (w < 0.84) this.commit(add);
			else if (w < 0.9) this.listing(add);
			else if (w < 0.94) this.other(add);
			else if (w < 0.97) this.hammer(add);
			else this.reread(add);
		} else {
			if (w < 0.15) this.explore(add);
			else if (w < 0.27) this.reread(add);
			else if (w < 0.39) this.testRuns(add, true);
			else if (w < 0.44) this.testRuns(add, false);
			else if (w < 0.57) this.greps(add, true);
			else if (w < 0.62) this.polls(add, true);
			else if (w < 0.64) this.polls(add, false);
			else if (w < 0.72) this.cycle(add);
			else if (w < 0.75) this.hammer(add);
			else if (w < 0.81) this.edit(add, false);
			else if (w < 0.83) this.commit(add);
			else if (w < 0.86) this.rtkLog(add);
			else if (w < 0.94) this.misc(add);
			else if (w < 0.97) this.listing(add);
			else this.other(add);
		}
		return calls;
	}

	// ---- file contents ----

	private lineOf(f: RepoFile, n: number): string {
		const pool = f.unicode ? this.v.mixed : this.v.ascii;
		return pool[(f.seed + n * 2654435761) % pool.length];
	}

	private lines(f: RepoFile, from: number, count: number): string {
		const out: string[] = [];
		const to = Math.min(f.lines, from + count - 1);
		for (let n = from; n <= to; n++) out.push(this.lineOf(f, n));
		return out.join("\n");
	}

	/** Pi's read: up to 2000 lines / 50 KB, with a continuation note. */
	private read(f: RepoFile, offset?: number, limit?: number): RawCall {
		const from = offset ?? 1;
		let count = Math.min(limit ?? 2000, f.lines - from + 1, 2000);
		let text = this.lines(f, from, count);
		if (text.length > 51_200) {
			text = text.slice(0, text.lastIndexOf("\n", 51_200));
			count = text.split("\n").length;
		}
		const next = from + count;
		if (next <= f.lines)
			text += `\n\n[Showing lines ${from}-${next - 1} of ${f.lines}. Use offset=${next} to continue.]`;
		const args: Record<string, unknown> = { path: f.path };
		if (offset !== undefined) args.offset = offset;
		if (limit !== undefined) args.limit = limit;
		return { name: "read", args, text, isError: false };
	}

	private file(): RepoFile {
		// Mostly a small working set, sometimes anywhere in the repository.
		return this.r() < 0.55 ? pick(this.r, this.hot) : pick(this.r, this.files);
	}

	// ---- episodes ----

	private explore(add: (c: RawCall) => void): void {
		const r = this.r;
		const f = pick(r, this.files);
		if (r() < 0.7) this.hot[int(r, 0, this.hot.length - 1)] = f;
		if (f.lines <= 250 || r() < 0.3) {
			add(this.read(f));
			return;
		}
		// Chunked reads at increasing offsets: progress, not a loop.
		const chunk = pick(r, [80, 120, 150, 200, 250]);
		const chunks = Math.min(int(r, 2, 6), Math.ceil(f.lines / chunk));
		let offset = r() < 0.6 ? 1 : int(r, 1, Math.max(1, f.lines - chunk * chunks));
		for (let k = 0; k < chunks && offset <= f.lines; k++, offset += chunk) add(this.read(f, offset, chunk));
	}

	private reread(add: (c: RawCall) => void): void {
		const r = this.r;
		const f = this.file();
		const offset = f.lines > 200 ? int(r, 1, f.lines - 100) : undefined;
		const limit = offset !== undefined ? pick(r, [60, 100, 150]) : undefined;
		const times = int(r, 2, 6);
		for (let k = 0; k < times; k++) {
			add(this.read(f, offset, limit));
			if (r() < 0.35) this.greps(add, true, f);
		}
	}

	private grepText(pattern: string, scope: RepoFile[]): string {
		const out: string[] = [];
		let h = 0;
		for (const c of pattern) h = (h * 31 + c.charCodeAt(0)) >>> 0;
		for (const f of scope) {
			if ((h ^ f.seed) % 7 !== 0) continue;
			const hits = 1 + ((h + f.seed) % 4);
			for (let k = 0; k < hits && out.length < 120; k++) {
				const n = 1 + ((h * (k + 3) + f.seed) % f.lines);
				out.push(`${f.rel}:${n}: ${this.lineOf(f, n).trim()}`);
			}
			if (out.length >= 120) break;
		}
		return out.length ? out.join("\n") : "No matches found";
	}

	private greps(add: (c: RawCall) => void, repeat: boolean, inFile?: RepoFile): void {
		const r = this.r;
		const times = repeat ? int(r, 1, 4) : 1;
		const pattern = pick(r, this.v.patterns);
		const dir = pick(r, DIRS);
		const scope = inFile ? [inFile] : this.files.filter((f) => f.rel.includes(`/${dir}/`) || r() < 0.1);
		const args: Record<string, unknown> = { pattern, path: inFile ? inFile.path : `${ROOT}/src` };
		if (!inFile && r() < 0.4) args.glob = "*.ts";
		const text = this.grepText(pattern, scope);
		for (let k = 0; k < times; k++)
			add({
				name: "grep",
				args,
				text,
				isError: false,
				...(text.length > 8000 ? { details: { matchLimitReached: 100 } } : {}),
			});
	}

	private hhmmss(): string {
		const d = new Date(this.clock);
		return d.toISOString().slice(11, 19);
	}

	/** One test run of a file: vitest output (or the RTK wrapper's summary), timestamps and durations vary. */
	private testOutput(test: string, tail: boolean): { text: string; isError: boolean } {
		const r = this.r;
		const failing = this.failing.get(test) ?? 0;
		const total = 8 + (test.length % 23);
		if (r() < 0.45) {
			const text = failing
				? `PASS (${total - failing}) FAIL (${failing})\n\n${Array.from({ length: failing }, (_, k) => `  FAIL ${test} > ${WORDS[(test.length + k) % WORDS.length]} > handles ${PROSE[k % PROSE.length]} case\n    AssertionError: expected ${40 + k} to be ${41 + k}`).join("\n")}\n\n[full log: ~/Library/Application Support/rtk/tee/${this.clock}_vitest_run.log]`
				: `PASS (${total}) FAIL (0)`;
			return { text, isError: failing > 0 && !tail };
		}
		const ms = () => `${int(r, 2, 300)}ms`;
		const lines = [` RUN  v4.1.12 ${ROOT}`, ""];
		const extra = int(r, 0, 6);
		for (let k = 0; k < extra; k++)
			lines.push(` ✓ ${this.tests[(test.length * 7 + k) % this.tests.length]} (${int(r, 3, 30)} tests) ${ms()}`);
		if (failing) {
			lines.push(` ❯ ${test} (${total} tests | ${failing} failed) ${ms()}`);
			for (let k = 0; k < failing; k++)
				lines.push(
					`   × ${WORDS[(test.length + k) % WORDS.length]} > handles ${PROSE[k % PROSE.length]} case ${ms()}`,
					`     → expected ${40 + k} to be ${41 + k}`,
				);
			lines.push("", `⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failing} ⎯⎯⎯⎯⎯⎯⎯`, "");
			for (let k = 0; k < failing; k++) {
				lines.push(
					` FAIL  ${test} > ${WORDS[(test.length + k) % WORDS.length]} > handles ${PROSE[k % PROSE.length]} case`,
					`AssertionError: expected ${40 + k} to be ${41 + k} // Object.is equality`,
					"",
					"- Expected",
					"+ Received",
					"",
					`- ${41 + k}`,
					`+ ${40 + k}`,
					"",
					` ❯ ${test}:${20 + k * 13}:22`,
				);
				for (let j = 0; j < 6; j++)
					lines.push(
						`     ${18 + k * 13 + j}|   ${this.v.ascii[(test.length * 17 + k * 5 + j) % this.v.ascii.length]}`,
					);
				lines.push("");
			}
		} else lines.push(` ✓ ${test} (${total} tests) ${ms()}`);
		lines.push(
			"",
			` Test Files  ${failing ? "1 failed | " : ""}${extra + (failing ? 0 : 1)} passed (${extra + 1})`,
			`      Tests  ${failing ? `${failing} failed | ` : ""}${total - failing + extra * 10} passed (${total + extra * 10})`,
			`   Start at  ${this.hhmmss()}`,
			`   Duration  ${(r() * 3 + 0.3).toFixed(2)}s (transform ${ms()}, setup 0ms, collect ${ms()}, tests ${ms()}, environment 0ms, prepare ${ms()})`,
		);
		let text = lines.join("\n");
		if (tail) text = text.split("\n").slice(-40).join("\n");
		return { text: failing && !tail ? `${text}\n\nCommand exited with code 1` : text, isError: failing > 0 && !tail };
	}

	private testRuns(add: (c: RawCall) => void, same: boolean): void {
		const r = this.r;
		const test = pick(r, this.tests);
		const tail = r() < 0.4;
		const command = pick(r, [
			`cd ${ROOT} && npx vitest run ${test}`,
			`npx vitest run ${test}${tail ? " 2>&1 | tail -40" : ""}`,
			`npm test -- ${test}${tail ? " 2>&1 | tail -40" : ""}`,
		]);
		const times = same ? int(r, 2, 7) : int(r, 1, 3);
		for (let k = 0; k < times; k++) {
			if (!same && k > 0) this.failing.set(test, Math.max(0, (this.failing.get(test) ?? 0) + pick(r, [-1, 0, 1])));
			const out = this.testOutput(test, tail);
			add({ name: "bash", args: { command, timeout: 120 }, ...out });
			if (same && r() < 0.3) add(this.read(pick(r, this.hot), undefined, undefined));
		}
	}

	private polls(add: (c: RawCall) => void, same: boolean): void {
		const r = this.r;
		const times = same ? int(r, 3, 10) : int(r, 2, 6);
		if (r() < 0.5) {
			const runId = (this.shells++ * 2654435761).toString(16).slice(-8).padStart(8, "0");
			const agent = pick(r, ["explorer", "builder", "reviewer"]);
			let step = int(r, 1, 3);
			for (let k = 0; k < times; k++) {
				if (!same) step++;
				add({
					name: "subagent",
					args: { action: "status", runId },
					text: `Run ${runId} (${agent}): running, step ${step}/9, ${int(r, 1, 59)}s since last event\nLast output: ${same ? "reading src/orders" : `${pick(r, VERBS)} ${pick(r, WORDS)} (${step})`}`,
					isError: false,
				});
			}
			return;
		}
		const bash_id = `shell_${this.shells++}`;
		for (let k = 0; k < times; k++) {
			if (!same) this.progress += int(r, 1, 9);
			const text = same
				? `<status>running</status>\n<stdout>\nwaiting for server on :3000 ...\n</stdout>\n<timestamp>${new Date(this.clock).toISOString()}</timestamp>`
				: `<status>running</status>\n<stdout>\n[build] ${this.progress % 100}% compiled ${this.progress * 3} modules\n</stdout>`;
			add({ name: "BashOutput", args: { bash_id }, text, isError: false });
		}
	}

	private edit(add: (c: RawCall) => void, wantLanding: boolean): void {
		const r = this.r;
		const f = this.file();
		const n = int(r, 1, f.lines);
		const oldText = this.lines(f, n, int(r, 1, 4));
		const newText = `${oldText}\n\t// ${pick(r, PROSE)} ${pick(r, WORDS)} ${this.index}`;
		const lands = wantLanding && !this.stuck(this.index);
		if (r() < 0.08 && lands) {
			const content = this.lines(f, 1, Math.min(f.lines, 120));
			add({
				name: "write",
				args: { path: f.path, content },
				text: `Successfully wrote ${content.length} bytes to ${f.path}`,
				isError: false,
			});
		} else if (lands) {
			const diff = [
				`     ...`,
				...oldText.split("\n").map((l, k) => `-${String(n + k).padStart(4)} ${l}`),
				...newText.split("\n").map((l, k) => `+${String(n + k).padStart(4)} ${l}`),
				`     ...`,
			].join("\n");
			add({
				name: "edit",
				args: { path: f.path, edits: [{ oldText, newText }] },
				text: `Successfully replaced 1 block(s) in ${f.rel}.`,
				isError: false,
				details: { diff, firstChangedLine: n },
			});
		} else if (r() < 0.8) {
			add({
				name: "edit",
				args: { path: f.path, edits: [{ oldText: `${oldText} `, newText }] },
				text: `Could not find the exact text in ${f.path}. The old text must match exactly including all whitespace and newlines.`,
				isError: true,
			});
		} else {
			add({
				name: "edit",
				args: { path: f.path, edits: [{ oldText, newText: oldText }] },
				text: `Successfully replaced 1 block(s) in ${f.rel}.`,
				isError: false,
				details: { diff: "", firstChangedLine: n },
			});
			return;
		}
		if (lands) {
			this.dirty.add(f.rel);
			const t = pick(r, this.tests);
			this.failing.set(t, Math.max(0, (this.failing.get(t) ?? 0) - 1));
			if (r() < 0.1) this.failing.set(pick(r, this.tests), int(r, 1, 3));
		}
	}

	private commit(add: (c: RawCall) => void): void {
		const r = this.r;
		const message = `${pick(r, ["fix", "feat", "refactor", "test"])}: ${pick(r, VERBS)} ${pick(r, WORDS)} ${pick(r, WORDS)}`;
		const command = `cd ${ROOT} && git add -A && git commit -m "${message}"`;
		if (!this.stuck(this.index) && this.dirty.size) {
			const n = this.dirty.size;
			this.dirty.clear();
			this.commits++;
			add({
				name: "bash",
				args: { command },
				text: `[feat/checkout ${(this.commits * 0x9e3779b1).toString(16).slice(-7)}] ${message}\n ${n} file${n > 1 ? "s" : ""} changed, ${int(r, 1, 90)} insertions(+), ${int(r, 0, 40)} deletions(-)`,
				isError: false,
			});
		} else
			add({
				name: "bash",
				args: { command },
				text: "On branch feat/checkout\nnothing to commit, working tree clean\n\nCommand exited with code 1",
				isError: true,
			});
	}

	private gitStatus(): string {
		const dirty = [...this.dirty].slice(0, 30);
		return dirty.length
			? `On branch feat/checkout\nChanges not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n${dirty.map((d) => `\tmodified:   ${d}`).join("\n")}\n\nno changes added to commit (use "git add" and/or "git commit -a")`
			: "On branch feat/checkout\nnothing to commit, working tree clean";
	}

	private misc(add: (c: RawCall) => void): void {
		const r = this.r;
		const w = r();
		if (w < 0.25) add({ name: "bash", args: { command: "git status" }, text: this.gitStatus(), isError: false });
		else if (w < 0.4) {
			const f = this.file();
			add({
				name: "bash",
				args: { command: `cd ${ROOT} && git diff -- ${f.rel}` },
				text: this.dirty.has(f.rel)
					? `diff --git a/${f.rel} b/${f.rel}\n--- a/${f.rel}\n+++ b/${f.rel}\n@@ -1,6 +1,7 @@\n${this.lines(f, 1, 6)
							.split("\n")
							.map((l) => ` ${l}`)
							.join("\n")}\n+// changed`
					: "",
				isError: false,
			});
		} else if (w < 0.55) {
			const errors = this.dirty.size % 4;
			add({
				name: "bash",
				args: { command: `cd ${ROOT} && npx tsc --noEmit -p . 2>&1 | head -30` },
				text: errors
					? Array.from(
							{ length: errors },
							(_, k) =>
								`src/${DIRS[k]}/${WORDS[k]}.ts(${10 + k},${5 + k}): error TS2345: Argument of type 'string' is not assignable to parameter of type '${cap(WORDS[k + 3])}Id'.`,
						).join("\n")
					: "(no output)",
				isError: false,
			});
		} else if (w < 0.7) {
			const f = this.file();
			const a = int(r, 1, Math.max(1, f.lines - 60));
			add({
				name: "bash",
				args: { command: `sed -n '${a},${a + 60}p' ${f.rel}` },
				text: this.lines(f, a, 61),
				isError: false,
			});
		} else if (w < 0.8) {
			add({
				name: "bash",
				args: { command: "git log --oneline -8" },
				text: Array.from(
					{ length: 8 },
					(_, k) =>
						`${((this.commits - k + 99) * 0x9e3779b1).toString(16).slice(-7)} ${pick(r, ["fix", "feat", "test"])}: ${pick(r, VERBS)} ${pick(r, WORDS)}`,
				).join("\n"),
				isError: false,
			});
		} else if (w < 0.9) {
			const pattern = pick(r, this.v.patterns);
			add({
				name: "bash",
				args: { command: `rg -n "${pattern}" src | head -20` },
				text: this.grepText(pattern, this.files).split("\n").slice(0, 20).join("\n"),
				isError: false,
			});
		} else {
			// A big output, cut by the tool (Pi keeps the last 50 KB and says so).
			const f = pick(
				r,
				this.files.filter((x) => x.lines > 900),
			);
			const full = this.lines(f, 1, f.lines);
			const shown = full.length > 51_200 ? full.slice(full.length - 51_200) : full;
			const truncated = full.length > 51_200;
			add({
				name: "bash",
				args: { command: `cd ${ROOT} && cat ${f.rel}` },
				text: truncated
					? `${shown}\n\n[Showing last 50.0KB of output. Full output: /var/folders/xy/T/pi-bash-${this.index.toString(16)}.log]`
					: shown,
				isError: false,
				...(truncated
					? {
							details: {
								truncation: {
									content: shown,
									truncated: true,
									truncatedBy: "bytes",
									totalLines: f.lines,
									totalBytes: full.length,
									outputLines: shown.split("\n").length,
									outputBytes: shown.length,
									maxLines: 2000,
									maxBytes: 51200,
								},
								fullOutputPath: `/var/folders/xy/T/pi-bash-${this.index.toString(16)}.log`,
							},
						}
					: {}),
			});
		}
	}

	private listing(add: (c: RawCall) => void): void {
		const r = this.r;
		const dir = pick(r, DIRS);
		const inDir = this.files.filter((f) => f.rel.includes(`/${dir}/`));
		if (r() < 0.5)
			add({
				name: "ls",
				args: { path: `${ROOT}/src/${dir}` },
				text: inDir
					.filter((f) => f.rel.startsWith("src/"))
					.map((f) => f.rel.replace(/^.*\//, ""))
					.join("\n"),
				isError: false,
			});
		else
			add({
				name: "find",
				args: { pattern: "*.test.ts", path: `${ROOT}/test/${dir}` },
				text:
					inDir
						.filter((f) => f.rel.startsWith("test/"))
						.map((f) => f.rel)
						.join("\n") || "No files found matching pattern",
				isError: false,
			});
	}

	private other(add: (c: RawCall) => void): void {
		const r = this.r;
		if (r() < 0.5) {
			const query = `${pick(r, WORDS)} ${pick(r, WORDS)} idempotency vitest`;
			add({
				name: "web_explore",
				args: { query },
				text: Array.from(
					{ length: int(r, 2, 6) },
					(_, k) =>
						`${k + 1}. https://example.org/${pick(r, WORDS)}/${pick(r, WORDS)}\n   ${Array.from({ length: 25 }, () => pick(r, PROSE)).join(" ")}`,
				).join("\n"),
				isError: false,
			});
		} else
			add({
				name: "intercom",
				args: {
					action: "send",
					to: "parent",
					message: `Progress: ${Array.from({ length: int(r, 8, 40) }, () => pick(r, PROSE)).join(" ")}`,
				},
				text: "Message delivered.",
				isError: false,
			});
	}

	/** A-B-A-B… (or A-B-C ×3) with identical results. */
	private cycle(add: (c: RawCall) => void): void {
		const r = this.r;
		const test = pick(r, this.tests);
		const f = this.file();
		const a = this.read(f, f.lines > 200 ? 101 : undefined, f.lines > 200 ? 80 : undefined);
		const b = {
			name: "bash",
			args: { command: `npx vitest run ${test} 2>&1 | tail -40` },
			...this.testOutput(test, true),
		};
		const c = { name: "bash", args: { command: "git status" }, text: this.gitStatus(), isError: false };
		const pattern = r() < 0.5 ? [a, b] : [a, b, c];
		const rounds = int(r, 3, 4);
		for (let k = 0; k < rounds; k++) for (const call of pattern) add(call);
	}

	/** One command run over and over with a little else in between (dominance). */
	private hammer(add: (c: RawCall) => void): void {
		const r = this.r;
		const status = { name: "bash", args: { command: "git status" }, text: this.gitStatus(), isError: false };
		const times = int(r, 12, 20);
		for (let k = 0; k < times; k++) {
			add(status);
			if (r() < 0.2) this.listing(add);
		}
	}

	/** Re-reading the RTK wrapper's parked test log, whole. */
	private rtkLog(add: (c: RawCall) => void): void {
		const r = this.r;
		const test = pick(r, this.tests);
		const path = `/Users/dev/Library/Application Support/rtk/tee/${1_783_800_000 + (test.length % 7)}_vitest_run.log`;
		const out = this.testOutput(test, false).text;
		const times = int(r, 2, 5);
		for (let k = 0; k < times; k++) add({ name: "read", args: { path }, text: out, isError: false });
	}
}

/** An endless stream of calls. */
export function* callStream(opts: StreamOptions): Generator<RawCall, never, unknown> {
	const agent = new Agent(opts);
	for (;;) for (const call of agent.episode()) yield call;
}

/** The first n calls of a stream. */
export function* take<T>(stream: Iterator<T>, n: number): Generator<T, void, unknown> {
	for (let i = 0; i < n; i++) {
		const next = stream.next();
		if (next.done) return;
		yield next.value;
	}
}
