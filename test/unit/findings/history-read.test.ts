// Reading the history log: filters, newest first across both files, chunk boundaries, and
// stopping early once lines are older than asked for.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventLine, type HistoryEvent, type HistoryEventInput } from "../../../src/findings/history-event.ts";
import { HISTORY_FILE, OLD_HISTORY_FILE } from "../../../src/findings/history-log.ts";
import { readHistory } from "../../../src/findings/history-read.ts";
import { seededRandom } from "../../support/seeded-random.ts";
import { tempDir } from "../../support/temp.ts";

const NOW = Date.parse("2025-06-30T12:00:00.000Z");
const HOUR = 3_600_000;

function line(event: HistoryEventInput, at: number): string {
	const shaped = eventLine(event, new Date(at));
	if (!shaped.ok) throw new Error(shaped.error);
	return shaped.line;
}

const finding = (session: string, cwd: string, source: string, summary: string): HistoryEventInput => ({
	kind: "finding",
	session,
	cwd,
	source,
	importance: "medium",
	severity: "concern",
	summary,
	evidence: "evidence",
	fate: "shown to you",
});

const review = (session: string, cwd: string): HistoryEventInput => ({
	kind: "review",
	session,
	cwd,
	trigger: "boundary",
	model: "acme/m",
	thinking: "high",
	durationMs: 1000,
	tokens: 10,
	cost: 0.01,
	outcome: "clean",
	paths: 1,
});

const summaries = (events: HistoryEvent[]) => events.map((e) => (e as { summary?: string }).summary ?? e.kind);

/** A log of the given events, one an hour up to NOW (last one newest), in the current file. */
function writeLog(events: HistoryEventInput[], file = HISTORY_FILE): string {
	const dir = join(tempDir(), "watchdog");
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, file), events.map((e, i) => line(e, NOW - (events.length - 1 - i) * HOUR)).join(""));
	return dir;
}

describe("filters", () => {
	const events = [
		finding("s1", "/a", "main", "one"),
		review("s1", "/a"),
		finding("s2", "/b", "lsp", "two"),
		finding("s2", "/a", "loops", "three"),
		{ kind: "loop-resolved", session: "s2", cwd: "/a", summary: "loop over" } as HistoryEventInput,
		{ kind: "failure", session: "s1", cwd: "/a", what: "review", message: "timeout" } as HistoryEventInput,
		finding("s1", "/a", "worker", "four"),
	];

	it("by session, cwd, since, source, kind and limit, newest first", async () => {
		const dir = writeLog(events);
		expect(summaries((await readHistory(dir)).events)).toEqual([
			"four",
			"failure",
			"loop over",
			"three",
			"two",
			"review",
			"one",
		]);
		expect(summaries((await readHistory(dir, { session: "s2" })).events)).toEqual(["loop over", "three", "two"]);
		expect(summaries((await readHistory(dir, { cwd: "/b" })).events)).toEqual(["two"]);
		expect(summaries((await readHistory(dir, { since: new Date(NOW - 2 * HOUR) })).events)).toEqual([
			"four",
			"failure",
			"loop over",
		]);
		expect(summaries((await readHistory(dir, { sources: ["loops"] })).events)).toEqual(["loop over", "three"]);
		expect(summaries((await readHistory(dir, { sources: ["review", "worker"] })).events)).toEqual(["four", "review"]);
		expect(summaries((await readHistory(dir, { kinds: ["finding"] })).events)).toEqual(["four", "three", "two", "one"]);
		expect(summaries((await readHistory(dir, { kinds: ["finding"], cwd: "/a", limit: 2 })).events)).toEqual([
			"four",
			"three",
		]);
		expect(summaries((await readHistory(dir, { session: "nobody" })).events)).toEqual([]);
	});

	it("reads the old file after the current one", async () => {
		const dir = writeLog(events.slice(0, 3), OLD_HISTORY_FILE);
		writeFileSync(
			join(dir, OLD_HISTORY_FILE),
			events
				.slice(0, 3)
				.map((e, i) => line(e, NOW - (10 - i) * HOUR))
				.join(""),
		);
		writeFileSync(
			join(dir, HISTORY_FILE),
			events
				.slice(3)
				.map((e, i) => line(e, NOW - (4 - i) * HOUR))
				.join(""),
		);
		expect(summaries((await readHistory(dir)).events)).toEqual([
			"four",
			"failure",
			"loop over",
			"three",
			"two",
			"review",
			"one",
		]);
		expect(summaries((await readHistory(dir, { limit: 5 })).events)).toEqual([
			"four",
			"failure",
			"loop over",
			"three",
			"two",
		]);
	});
});

describe("reading backwards", () => {
	it("gives the same events as a forward parse over many chunks, lines of every length included", async () => {
		const random = seededRandom(7);
		const inputs: HistoryEventInput[] = [];
		for (let i = 0; i < 6000; i++) {
			const text = "é€x".repeat(Math.floor(random() * 120));
			inputs.push(
				random() < 0.2
					? review(`s${i % 5}`, "/r")
					: ({ ...finding(`s${i % 5}`, "/r", "main", `${i} ${text}`), evidence: text } as HistoryEventInput),
			);
		}
		const dir = join(tempDir(), "watchdog");
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, HISTORY_FILE), inputs.map((e, i) => line(e, NOW - (inputs.length - i) * 1000)).join(""));
		const forward = readFileSync(join(dir, HISTORY_FILE), "utf8")
			.split("\n")
			.filter(Boolean)
			.map((l) => JSON.parse(l));
		expect(readFileSync(join(dir, HISTORY_FILE)).length).toBeGreaterThan(1_000_000); // several 256 KiB chunks
		const read = await readHistory(dir);
		expect(read.skipped).toBe(0);
		expect(read.events).toEqual(forward.reverse());
	});

	it("stops at the first line well older than --since: what lies before it is never read", async () => {
		const dir = writeLog([finding("s1", "/a", "main", "recent")]);
		const file = join(dir, HISTORY_FILE);
		// Older lines, and garbage before them that would be counted if it were read.
		const old = `not json at all\n${line(finding("s1", "/a", "main", "old"), NOW - 48 * HOUR)}`;
		writeFileSync(file, old + readFileSync(file, "utf8"));
		const read = await readHistory(dir, { since: new Date(NOW - 24 * HOUR) });
		expect(summaries(read.events)).toEqual(["recent"]);
		expect(read.skipped).toBe(0);
		expect((await readHistory(dir)).skipped).toBe(1);
	});

	it("keeps lines a moment out of order (two processes stamping just before writing)", async () => {
		const dir = join(tempDir(), "watchdog");
		mkdirSync(dir, { recursive: true });
		const file = join(dir, HISTORY_FILE);
		appendFileSync(file, line(finding("s1", "/a", "main", "a"), NOW - 10_000));
		appendFileSync(file, line(finding("s1", "/a", "main", "c"), NOW - 1_000)); // written before b, stamped after
		appendFileSync(file, line(finding("s1", "/a", "main", "b"), NOW - 5_000));
		const since = new Date(NOW - 3_000);
		expect(summaries((await readHistory(dir, { since })).events)).toEqual(["c"]);
		expect(summaries((await readHistory(dir, { limit: 2 })).events)).toEqual(["c", "b"]);
		expect(summaries((await readHistory(dir)).events)).toEqual(["c", "b", "a"]);
	});

	it("a missing log is simply empty", async () => {
		expect(await readHistory(join(tempDir(), "nothing-here"))).toEqual({ events: [], skipped: 0, refused: [] });
	});

	it("a nested child's lines are asked for by their path, with or without spaces around >", async () => {
		const nested = { ...finding("s1", "/a", "claims", "deep"), role: "tester", run: "r1", path: "worker > tester" };
		const dir = writeLog([finding("s1", "/a", "tester", "shallow"), nested as HistoryEventInput]);
		expect(summaries((await readHistory(dir, { sources: ["worker > tester"] })).events)).toEqual(["deep"]);
		expect(summaries((await readHistory(dir, { sources: ["worker>tester"] })).events)).toEqual(["deep"]);
		expect(summaries((await readHistory(dir, { sources: ["tester"] })).events)).toEqual(["deep", "shallow"]);
		expect(summaries((await readHistory(dir, { sources: ["scout > tester"] })).events)).toEqual([]);
	});
});
