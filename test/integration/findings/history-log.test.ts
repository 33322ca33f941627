// The history log on real files: concurrent appends from separate processes, rotation (alone
// and raced), lines that do not parse, and files that are not what they should be.
import { spawn } from "node:child_process";
import {
	appendFileSync,
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	statSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_LINE_BYTES } from "../../../src/findings/history-event.ts";
import {
	appendHistory,
	HISTORY_FILE,
	HistoryLog,
	historyDir,
	OLD_HISTORY_FILE,
	rotateIfFull,
} from "../../../src/findings/history-log.ts";
import { readHistory } from "../../../src/findings/history-read.ts";
import { tempDir } from "../../support/temp.ts";

const CHILD = join(import.meta.dirname, "append-child.ts");

function runChild(
	dir: string,
	tag: string,
	count: number,
	maxBytes: number,
	startAt: number,
): Promise<{ failed: number; errors: string[] }> {
	return new Promise((resolve, reject) => {
		const child = spawn(
			process.execPath,
			[
				"--experimental-strip-types",
				"--no-warnings",
				CHILD,
				dir,
				tag,
				String(count),
				String(maxBytes),
				String(startAt),
			],
			{
				stdio: ["ignore", "pipe", "pipe"],
			},
		);
		let out = "";
		let err = "";
		child.stdout.on("data", (d) => (out += d));
		child.stderr.on("data", (d) => (err += d));
		child.on("error", reject);
		child.on("close", (code) =>
			code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child ${tag} exited ${code}: ${err}`)),
		);
	});
}

function lines(path: string): string[] {
	return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
}

/** The sequence numbers of one child's lines, in file order. */
function seqs(parsed: Array<{ summary: string }>, tag: string): number[] {
	return parsed.filter((e) => e.summary.startsWith(`${tag} `)).map((e) => Number(e.summary.slice(tag.length + 1)));
}

const finding = (summary: string, extra: Record<string, unknown> = {}) =>
	({
		kind: "finding",
		session: "s1",
		cwd: "/repo",
		source: "main",
		importance: "high",
		severity: "blocker",
		summary,
		evidence: "e",
		fate: "sent to the agent",
		...extra,
	}) as const;

describe("two processes appending at once", () => {
	it("loses no line and tears none (10,000 lines each)", async () => {
		const dir = join(tempDir(), "watchdog");
		const start = Date.now() + 3000;
		const results = await Promise.all([
			runChild(dir, "A", 10_000, 1 << 30, start),
			runChild(dir, "B", 10_000, 1 << 30, start),
		]);
		expect(results).toEqual([
			{ failed: 0, errors: [] },
			{ failed: 0, errors: [] },
		]);
		const all = lines(join(dir, HISTORY_FILE));
		expect(all).toHaveLength(20_000);
		const parsed = all.map((l) => JSON.parse(l)); // throws on a torn line
		for (const tag of ["A", "B"]) expect(seqs(parsed, tag)).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
		// They did run at once: the two children's lines interleave.
		const switches = parsed.filter((e, i) => i > 0 && e.session !== parsed[i - 1].session).length;
		expect(switches).toBeGreaterThan(1);
		const read = await readHistory(dir);
		expect(read.skipped).toBe(0);
		expect(read.events).toHaveLength(20_000);
	});

	it("rotating at once keeps the current lines and exactly one old file that was full", async () => {
		const dir = join(tempDir(), "watchdog");
		const maxBytes = 65_536;
		const start = Date.now() + 3000;
		const results = await Promise.all([
			runChild(dir, "A", 5_000, maxBytes, start),
			runChild(dir, "B", 5_000, maxBytes, start),
		]);
		expect(results.map((r) => r.failed)).toEqual([0, 0]);
		// The writers' very last append may itself rotate, leaving no current file until the next
		// event ("reads the log right after a rotation" covers that state); one more event, as in
		// real use, starts it again, so what follows does not depend on where the race ended.
		appendHistory(dir, finding("after the writers"), { maxBytes: 1 << 30 });
		expect(readdirSync(dir).sort()).toEqual([OLD_HISTORY_FILE, HISTORY_FILE].sort()); // no lock left, no third file
		// A file is renamed only once it is over the limit: a fresh log renamed over the old one
		// (the race this guards against) would leave a small old file.
		expect(statSync(join(dir, OLD_HISTORY_FILE)).size).toBeGreaterThan(maxBytes);
		expect(statSync(join(dir, HISTORY_FILE)).size).toBeLessThan(maxBytes + 20 * 400);
		const kept = [...lines(join(dir, OLD_HISTORY_FILE)), ...lines(join(dir, HISTORY_FILE))].map((l) => JSON.parse(l));
		const runs = ["A", "B"].map((tag) => seqs(kept, tag));
		for (const s of runs) {
			// What is kept of each writer is one unbroken run ending with its last line: only whole
			// older files went (a writer that finished early may have none left).
			if (s.length) expect(s).toEqual(Array.from({ length: s.length }, (_, i) => 5_000 - s.length + i));
		}
		expect(runs.some((s) => s.length > 0)).toBe(true);
	});
});

describe("rotation", () => {
	it("renames the full log to history.1.jsonl and keeps only that one old file", async () => {
		const agentDir = tempDir();
		const log = new HistoryLog({ agentDir: () => agentDir, maxBytes: () => 2_000 });
		const dir = historyDir(agentDir);
		let rotations = 0;
		for (let i = 0; i < 60; i++) {
			const r = log.append(finding(`finding ${i}`));
			expect(r.ok).toBe(true);
			if (r.ok && r.rotated) rotations++;
		}
		expect(rotations).toBeGreaterThanOrEqual(2);
		// The last append may itself have rotated, leaving no current file yet.
		expect([OLD_HISTORY_FILE, HISTORY_FILE]).toEqual(expect.arrayContaining(readdirSync(dir)));
		expect(readdirSync(dir)).toContain(OLD_HISTORY_FILE);
		const read = await log.read();
		// Both files are read, newest first, and what the second rotation dropped is gone.
		expect(read.events[0]).toMatchObject({ summary: "finding 59" });
		const numbers = read.events.map((e) => Number((e as { summary: string }).summary.split(" ")[1]));
		expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => 59 - i));
		expect(numbers.at(-1)).toBeGreaterThan(0);
	});

	it("a second process that saw the same full log does not rename the fresh one over the old", () => {
		// Both saw the log over its limit; the first rotated and a line went into a fresh log
		// before the second got to rotate. The race is too narrow to hit reliably with real
		// processes, so this is that moment, step by step.
		const dir = join(tempDir(), "watchdog");
		for (let i = 0; i < 20; i++) appendHistory(dir, finding(`full ${i}`), { maxBytes: 1 << 30 });
		const fullSize = statSync(join(dir, HISTORY_FILE)).size;
		expect(rotateIfFull(dir, 1_000)).toBe(true); // the first process
		appendHistory(dir, finding("fresh"), { maxBytes: 1 << 30 });
		expect(rotateIfFull(dir, 1_000)).toBe(false); // the second, late
		expect(statSync(join(dir, OLD_HISTORY_FILE)).size).toBe(fullSize);
		expect(lines(join(dir, HISTORY_FILE))).toHaveLength(1);
	});

	it("while one process holds the rotation lock another leaves the log alone; a lock left by a dead process expires", () => {
		const dir = join(tempDir(), "watchdog");
		for (let i = 0; i < 20; i++) appendHistory(dir, finding(`full ${i}`), { maxBytes: 1 << 30 });
		const lock = join(dir, "history.rotate.lock");
		writeFileSync(lock, "");
		expect(rotateIfFull(dir, 1_000)).toBe(false);
		expect(existsSync(join(dir, OLD_HISTORY_FILE))).toBe(false);
		const old = new Date(Date.now() - 60_000);
		utimesSync(lock, old, old);
		expect(rotateIfFull(dir, 1_000)).toBe(true);
		expect(existsSync(lock)).toBe(false);
	});

	it("reads the log right after a rotation with an empty current file", async () => {
		const dir = join(tempDir(), "watchdog");
		appendHistory(dir, finding("old one"), { maxBytes: 10 });
		expect(existsSync(join(dir, OLD_HISTORY_FILE))).toBe(true);
		expect(existsSync(join(dir, HISTORY_FILE))).toBe(false);
		expect((await readHistory(dir)).events.map((e) => (e as { summary: string }).summary)).toEqual(["old one"]);
	});
});

describe("lines that are not events", () => {
	it("skips and counts a corrupt line and a truncated last line; the next append starts on a fresh line", async () => {
		const dir = join(tempDir(), "watchdog");
		const now = Date.now();
		appendHistory(dir, finding("first"), { now: new Date(now - 3000) });
		appendFileSync(join(dir, HISTORY_FILE), "this is not json\n");
		appendFileSync(join(dir, HISTORY_FILE), '["an array"]\n');
		appendHistory(dir, finding("second"), { now: new Date(now - 2000) });
		appendFileSync(join(dir, HISTORY_FILE), '{"at":"2030-01-01T00:00:00.000Z","session":"s1","cwd":"/re'); // a crash mid-write
		let read = await readHistory(dir);
		expect(read.events.map((e) => (e as { summary: string }).summary)).toEqual(["second", "first"]);
		expect(read.skipped).toBe(3);

		expect(appendHistory(dir, finding("third"), { now: new Date(now - 1000) }).ok).toBe(true);
		read = await readHistory(dir);
		expect(read.events.map((e) => (e as { summary: string }).summary)).toEqual(["third", "second", "first"]);
		expect(read.skipped).toBe(3);
	});

	it("a line far too long to be ours is counted once, not held whole", async () => {
		const dir = join(tempDir(), "watchdog");
		appendHistory(dir, finding("before"), { now: new Date(Date.now() - 1000) });
		appendFileSync(join(dir, HISTORY_FILE), `${"z".repeat(600_000)}\n`);
		appendHistory(dir, finding("after"));
		const read = await readHistory(dir);
		expect(read.events.map((e) => (e as { summary: string }).summary)).toEqual(["after", "before"]);
		expect(read.skipped).toBe(1);
	});
});

describe("what a line holds", () => {
	it("starts with at, caps every text, and stays under 4 KiB whatever it is given", async () => {
		const dir = join(tempDir(), "watchdog");
		const huge = "ü✓🙂\n".repeat(5_000);
		const result = appendHistory(dir, { ...finding(huge), evidence: huge, category: huge });
		expect(result.ok).toBe(true);
		const [line] = lines(join(dir, HISTORY_FILE));
		expect(line.startsWith('{"at":"')).toBe(true);
		expect(Buffer.byteLength(line) + 1).toBeLessThanOrEqual(MAX_LINE_BYTES);
		const e = JSON.parse(line);
		expect(Object.keys(e).slice(0, 4)).toEqual(["at", "session", "cwd", "kind"]);
		expect(e.summary.length).toBeLessThanOrEqual(300);
		expect(e.summary).not.toContain("\n"); // a summary is one line
		expect(e.evidence.length).toBeLessThanOrEqual(300);
	});

	it("keeps a line whose every text is control characters (JSON writes each as six bytes): fields are cut, not the line", async () => {
		const dir = join(tempDir(), "watchdog");
		const control = "\u0001\u001f\u007f".repeat(340); // about 1,000 characters, over 6 KB as JSON
		const deny = {
			kind: "permission",
			session: control,
			cwd: `/p/${control}`,
			role: control,
			run: control,
			tool: control,
			rule: control,
			decision: "deny",
			how: "rule",
			reason: control,
			latencyMs: 1,
		} as const;
		expect(appendHistory(dir, deny).ok).toBe(true);
		const [line] = lines(join(dir, HISTORY_FILE));
		expect(Buffer.byteLength(line) + 1).toBeLessThanOrEqual(MAX_LINE_BYTES);
		const e = JSON.parse(line);
		expect(e).toMatchObject({ kind: "permission", decision: "deny", how: "rule" });
		expect(e.cwd.startsWith("/p/\u0001")).toBe(true);
		expect(e.reason.length).toBeGreaterThan(0);
	});

	it("a review line keeps its figures", async () => {
		const dir = join(tempDir(), "watchdog");
		appendHistory(dir, {
			kind: "review",
			session: "s1",
			cwd: "/repo",
			trigger: "boundary",
			model: "acme/gpt-5.5",
			thinking: "high",
			durationMs: 12_345,
			tokens: 4_321,
			cost: 0.0123,
			outcome: "findings",
			paths: 3,
			carriedOver: 1,
			failure: undefined,
		});
		const [e] = (await readHistory(dir)).events;
		expect(e).toEqual({
			at: expect.any(String),
			session: "s1",
			cwd: "/repo",
			kind: "review",
			trigger: "boundary",
			model: "acme/gpt-5.5",
			thinking: "high",
			durationMs: 12_345,
			tokens: 4_321,
			cost: 0.0123,
			outcome: "findings",
			paths: 3,
			carriedOver: 1,
		});
	});
});

describe("files that are not what they should be", () => {
	it("a FIFO at the log's name is neither waited on nor written, and nothing throws", async () => {
		const dir = join(tempDir(), "watchdog");
		mkdirSync(dir, { recursive: true });
		const mkfifo = await new Promise<number | null>((resolve) =>
			spawn("mkfifo", [join(dir, HISTORY_FILE)]).on("close", resolve),
		);
		expect(mkfifo).toBe(0);
		const appended = appendHistory(dir, finding("x"));
		expect(appended).toMatchObject({ ok: false, error: expect.stringMatching(/FIFO|not a regular file/) });
		const read = await readHistory(dir);
		expect(read.events).toEqual([]);
		expect(read.refused.join("\n")).toMatch(/not a regular file/);
	});

	it("a symbolic link at the log's name is not written through or read", async () => {
		const root = tempDir();
		const dir = join(root, "watchdog");
		mkdirSync(dir, { recursive: true });
		const outside = join(root, "precious.txt");
		writeFileSync(outside, "keep me\n");
		symlinkSync(outside, join(dir, HISTORY_FILE));
		expect(appendHistory(dir, finding("x"))).toMatchObject({
			ok: false,
			error: expect.stringMatching(/symbolic link/),
		});
		expect(readFileSync(outside, "utf8")).toBe("keep me\n");
		const read = await readHistory(dir);
		expect(read.events).toEqual([]);
		expect(read.refused).toHaveLength(1);
	});

	it("an unwritable folder is reported, not thrown", () => {
		const root = tempDir();
		writeFileSync(join(root, "watchdog"), "a file where the folder should be");
		const result = appendHistory(join(root, "watchdog"), finding("x"));
		expect(result.ok).toBe(false);
		const log = new HistoryLog({
			agentDir: () => root,
			maxBytes: () => {
				throw new Error("settings gone");
			},
		});
		expect(log.append(finding("y"))).toEqual({ ok: false, error: "settings gone" });
	});
});
