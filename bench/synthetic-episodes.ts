// The kinds of call the synthetic agent makes, each an episode of a few calls that belong together:
// exploring and re-reading files, greps, test runs, polls, edits, commits, shell odds and ends,
// listings, web searches and messages, A-B cycles, a hammered command, re-reading a parked log.
// Each works on the state and outputs of synthetic-results.ts; synthetic-calls.ts picks among them.
import { cap, DIRS, int, pick, PROSE, type RepoFile, ROOT, VERBS, WORDS } from "./synthetic-vocab.ts";
import { AgentState, type RawCall } from "./synthetic-results.ts";

/** The episodes; whether a call index is in a stuck phase is the schedule's (synthetic-calls.ts). */
export abstract class Episodes extends AgentState {
	/** Whether a call at index i is in a stuck phase (nothing lands). */
	abstract stuck(i: number): boolean;

	protected explore(add: (c: RawCall) => void): void {
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

	protected reread(add: (c: RawCall) => void): void {
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

	protected greps(add: (c: RawCall) => void, repeat: boolean, inFile?: RepoFile): void {
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

	protected testRuns(add: (c: RawCall) => void, same: boolean): void {
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

	protected polls(add: (c: RawCall) => void, same: boolean): void {
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

	protected edit(add: (c: RawCall) => void, wantLanding: boolean): void {
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

	protected commit(add: (c: RawCall) => void): void {
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

	protected misc(add: (c: RawCall) => void): void {
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

	protected listing(add: (c: RawCall) => void): void {
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

	protected other(add: (c: RawCall) => void): void {
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
	protected cycle(add: (c: RawCall) => void): void {
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
	protected hammer(add: (c: RawCall) => void): void {
		const r = this.r;
		const status = { name: "bash", args: { command: "git status" }, text: this.gitStatus(), isError: false };
		const times = int(r, 12, 20);
		for (let k = 0; k < times; k++) {
			add(status);
			if (r() < 0.2) this.listing(add);
		}
	}

	/** Re-reading the RTK wrapper's parked test log, whole. */
	protected rtkLog(add: (c: RawCall) => void): void {
		const r = this.r;
		const test = pick(r, this.tests);
		const path = `/Users/dev/Library/Application Support/rtk/tee/${1_783_800_000 + (test.length % 7)}_vitest_run.log`;
		const out = this.testOutput(test, false).text;
		const times = int(r, 2, 5);
		for (let k = 0; k < times; k++) add({ name: "read", args: { path }, text: out, isError: false });
	}
}
