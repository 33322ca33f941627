// The synthetic agent's world and what its tools answer: the repository it works on (a few hundred
// files with their lines), which tests fail, what is uncommitted, the clock, and the outputs built
// from them (reads, grep hits, vitest runs, git status). The episodes (synthetic-episodes.ts) make
// calls from these; synthetic-calls.ts schedules them into a stream.
import { DIRS, int, pick, PROSE, type RepoFile, rng, ROOT, type Vocab, vocabulary, WORDS } from "./synthetic-vocab.ts";

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

/** The agent's state, and the tool outputs that follow from it. */
export class AgentState {
	protected r: () => number;
	protected v: Vocab;
	protected files: RepoFile[];
	protected tests: string[];
	protected opts: Required<StreamOptions>;
	index = 0;
	protected clock = 1_783_800_000_000;
	protected failing = new Map<string, number>();
	protected dirty = new Set<string>();
	protected commits = 0;
	protected shells = 0;
	protected progress = 0;
	protected hot: RepoFile[] = [];

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
	}

	// ---- file contents ----

	protected lineOf(f: RepoFile, n: number): string {
		const pool = f.unicode ? this.v.mixed : this.v.ascii;
		return pool[(f.seed + n * 2654435761) % pool.length];
	}

	protected lines(f: RepoFile, from: number, count: number): string {
		const out: string[] = [];
		const to = Math.min(f.lines, from + count - 1);
		for (let n = from; n <= to; n++) out.push(this.lineOf(f, n));
		return out.join("\n");
	}

	/** Pi's read: up to 2000 lines / 50 KB, with a continuation note. */
	protected read(f: RepoFile, offset?: number, limit?: number): RawCall {
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

	protected file(): RepoFile {
		// Mostly a small working set, sometimes anywhere in the repository.
		return this.r() < 0.55 ? pick(this.r, this.hot) : pick(this.r, this.files);
	}

	protected grepText(pattern: string, scope: RepoFile[]): string {
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

	protected hhmmss(): string {
		const d = new Date(this.clock);
		return d.toISOString().slice(11, 19);
	}

	/** One test run of a file: vitest output (or the RTK wrapper's summary), timestamps and durations vary. */
	protected testOutput(test: string, tail: boolean): { text: string; isError: boolean } {
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

	protected gitStatus(): string {
		const dirty = [...this.dirty].slice(0, 30);
		return dirty.length
			? `On branch feat/checkout\nChanges not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n${dirty.map((d) => `\tmodified:   ${d}`).join("\n")}\n\nno changes added to commit (use "git add" and/or "git commit -a")`
			: "On branch feat/checkout\nnothing to commit, working tree clean";
	}
}
