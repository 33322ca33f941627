// `/subagents-watchdog history`: its flags, their errors, completion, the text and --json
// output, over a real log in a temp folder.
import { mkdirSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseHistoryArgs, parseSince, toQuery } from "../../../src/commands/history-args.ts";
import { runHistory } from "../../../src/commands/history-command.ts";
import { describeEvent, localTime } from "../../../src/commands/history-format.ts";
import { completeArguments, parseCommand } from "../../../src/commands/watchdog-command.ts";
import { eventLine, type HistoryEvent, type HistoryEventInput } from "../../../src/findings/history-event.ts";
import { HISTORY_FILE, historyDir } from "../../../src/findings/history-log.ts";
import { tempDir } from "../../support/temp.ts";

const NOW = new Date("2025-06-30T12:00:00.000Z");
const HOUR = 3_600_000;
const SCOPE = { sessionId: "s-here", cwd: "/repo" };

describe("flags", () => {
	it("parses every flag, in both spellings, lists by comma or by repeating", () => {
		expect(parseHistoryArgs([])).toEqual({ ok: true, request: {} });
		expect(
			parseHistoryArgs([
				"--session",
				"current",
				"--since=24h",
				"--source",
				"lsp,loops",
				"--source=review",
				"--kind",
				"finding",
				"--limit",
				"5",
				"--json",
			]),
		).toEqual({
			ok: true,
			request: {
				session: "current",
				since: "24h",
				sources: ["lsp", "loops", "review"],
				kinds: ["finding"],
				limit: "5",
				json: true,
			},
		});
		expect(parseCommand("history --since 7d")).toEqual({ kind: "history", request: { since: "7d" } });
	});

	it("says what is wrong with a flag, and how to use it", () => {
		const error = (words: string[]) => {
			const r = parseHistoryArgs(words);
			return r.ok ? "" : r.error;
		};
		expect(error(["--since"])).toMatch(/^--since needs a value\nUsage: \/subagents-watchdog history \[--session/);
		expect(error(["--since", "--json"])).toMatch(/^--since needs a value/);
		expect(error(["--verbose"])).toMatch(/^unknown flag --verbose for history/);
		expect(error(["yesterday"])).toMatch(/^unexpected "yesterday": history takes only flags/);
		expect(error(["--json=yes"])).toMatch(/--json takes no value/);
		expect(parseCommand("history --bogus")).toMatchObject({
			kind: "error",
			message: expect.stringMatching(/unknown flag --bogus/),
		});
	});

	it("checks values: durations and dates, limits, kinds, a current session to filter by", () => {
		expect(parseSince("24h", NOW)).toEqual({ ok: true, date: new Date(NOW.getTime() - 24 * HOUR), relative: true });
		expect(parseSince("90m", NOW)).toMatchObject({ date: new Date(NOW.getTime() - 90 * 60_000) });
		expect(parseSince("7d", NOW)).toMatchObject({ date: new Date(NOW.getTime() - 7 * 24 * HOUR) });
		expect(parseSince("2025-06-01", NOW)).toEqual({
			ok: true,
			date: new Date("2025-06-01T00:00:00.000Z"),
			relative: false,
		});
		expect(parseSince("2025-06-01T10:30:00Z", NOW)).toMatchObject({ date: new Date("2025-06-01T10:30:00Z") });
		for (const bad of ["yesterday", "1", "24", "0h", "24x", "June 1", "2025-13-45"])
			expect(parseSince(bad, NOW)).toMatchObject({ ok: false });
		expect(parseSince("yesterday", NOW)).toMatchObject({
			error: expect.stringMatching(/neither a duration \(90m, 24h, 7d, 2w\) nor an ISO date/),
		});

		const query = (request: Parameters<typeof toQuery>[0], scope = SCOPE) => toQuery(request, scope, NOW);
		expect(query({})).toEqual({
			ok: true,
			query: { filter: { cwd: "/repo", limit: 20 }, json: false, described: "in this project (/repo)" },
		});
		expect(query({ session: "current", since: "24h", sources: ["lsp", " lsp", ""], limit: "3", json: true })).toEqual({
			ok: true,
			query: {
				filter: { session: "s-here", since: new Date(NOW.getTime() - 24 * HOUR), sources: ["lsp"], limit: 3 },
				json: true,
				described: "in this session in the last 24h from lsp",
			},
		});
		// The fleet's lines belong to no one project: its source is read machine-wide.
		expect(query({ sources: ["fleet"] })).toEqual({
			ok: true,
			query: { filter: { sources: ["fleet"], limit: 20 }, json: false, described: "on this machine from fleet" },
		});
		expect(query({ session: "abc" })).toMatchObject({
			ok: true,
			query: { filter: { session: "abc", limit: 20 }, described: "in session abc" },
		});
		for (const limit of ["0", "-1", "ten", "1.5", "10001", 0])
			expect(query({ limit })).toMatchObject({
				ok: false,
				error: expect.stringMatching(/--limit .*whole number from 1 to 10000/),
			});
		expect(query({ kinds: ["finding", "gossip"] })).toMatchObject({
			ok: false,
			error: expect.stringMatching(/unknown kind gossip/),
		});
		expect(query({ session: "current" }, { sessionId: "", cwd: "/repo" })).toMatchObject({
			ok: false,
			error: expect.stringMatching(/no id/),
		});
	});

	it("completes history and its flags' values", () => {
		const values = (prefix: string) => completeArguments(prefix, [])?.map((c) => c.value);
		expect(values("hi")).toEqual(["history"]);
		expect(values("history ")).toEqual([
			"history --session",
			"history --since",
			"history --source",
			"history --kind",
			"history --limit",
			"history --json",
		]);
		expect(values("history --since 24h --")).toEqual([
			"history --since 24h --session",
			"history --since 24h --source",
			"history --since 24h --kind",
			"history --since 24h --limit",
			"history --since 24h --json",
		]);
		expect(values("history --since ")).toEqual(["history --since 24h", "history --since 7d", "history --since 90m"]);
		expect(values("history --session c")).toEqual(["history --session current"]);
		expect(values("history --source l")).toEqual(["history --source lsp", "history --source loops"]);
	});
});

const base = (at: number, extra: Record<string, unknown>): { at: number; event: HistoryEventInput } => ({
	at,
	event: { session: "s-here", cwd: "/repo", ...extra } as HistoryEventInput,
});

const EVENTS = [
	base(NOW.getTime() - 50 * HOUR, {
		kind: "finding",
		source: "main",
		importance: "high",
		severity: "blocker",
		category: "correctness",
		summary: "ancient finding",
		evidence: "e",
		fate: "sent to the agent",
	}),
	base(NOW.getTime() - 5 * HOUR, {
		kind: "review",
		trigger: "boundary",
		model: "acme/gpt-5.5",
		thinking: "high",
		durationMs: 12_345,
		tokens: 4321,
		cost: 0.0123,
		outcome: "findings",
		paths: 3,
		carriedOver: 1,
	}),
	base(NOW.getTime() - 4 * HOUR, {
		kind: "finding",
		source: "lsp",
		importance: "high",
		severity: "blocker",
		summary: "src/a.ts:3 Type 'string' is not assignable to 'number'",
		evidence: "e",
		fate: "sent to the agent",
	}),
	base(NOW.getTime() - 3 * HOUR, {
		kind: "finding",
		source: "main",
		importance: "low",
		severity: "concern",
		summary: "a test for the empty cart is missing",
		evidence: "e",
		fate: "shown to you",
		category: "test-gap",
	}),
	base(NOW.getTime() - 2 * HOUR, {
		kind: "loop-resolved",
		summary: "the repeated read of src/a.ts ended with an edit",
	}),
	base(NOW.getTime() - 1 * HOUR, {
		kind: "failure",
		what: "review",
		message: "faux-reviewer/reviewer-model: rate limit",
	}),
	base(NOW.getTime() - 30 * 60_000, {
		kind: "finding",
		source: "main",
		importance: "medium",
		severity: "concern",
		summary: "other project",
		evidence: "e",
		fate: "shown to you",
		cwd: "/elsewhere",
		session: "s-other",
	}),
	base(NOW.getTime() - 20 * 60_000, {
		kind: "config-change",
		by: "agent",
		outcome: "refused",
		change: "/subagents-watchdog off",
	}),
];

function writeLog(): string {
	const agentDir = tempDir();
	mkdirSync(historyDir(agentDir), { recursive: true });
	const text = EVENTS.map(({ at, event }) => {
		const shaped = eventLine(event, new Date(at));
		if (!shaped.ok) throw new Error(shaped.error);
		return shaped.line;
	}).join("");
	writeFileSync(
		`${historyDir(agentDir)}/${HISTORY_FILE}`,
		`${text}{"at":"2025-06-30T11:59:00.000Z","kind":"review","cut sh`,
	);
	return agentDir;
}

describe("runHistory", () => {
	const env = (agentDir: string) => ({ agentDir, sessionId: "s-here", cwd: "/repo" });

	it("shows this project's events newest first, one line each, and says what it skipped", async () => {
		const agentDir = writeLog();
		const { text, level } = await runHistory("", env(agentDir), NOW);
		const lines = text.split("\n");
		expect(lines[0]).toBe("Watchdog history in this project (/repo): 7 events, newest first");
		expect(lines.slice(1, 8).map((l) => l.slice(21).split(/\s+/)[0])).toEqual([
			"config-change",
			"failure",
			"loop-resolved",
			"finding",
			"finding",
			"review",
			"finding",
		]);
		expect(lines[1]).toBe(
			`${localTime(new Date(NOW.getTime() - 20 * 60_000).toISOString())}  config-change  config   by agent, refused: /subagents-watchdog off`,
		);
		expect(text).toContain(
			"  finding        main     low/concern · test-gap · a test for the empty cart is missing → shown to you",
		);
		expect(text).toContain(
			"  review         review   boundary · acme/gpt-5.5:high · findings · 3 paths (1 carried over) · 12.3 s · 4,321 tokens · $0.0123",
		);
		expect(text).toContain("  failure        failure  review: faux-reviewer/reviewer-model: rate limit");
		expect(text).not.toContain("other project");
		expect(lines.at(-1)).toBe("(1 unreadable line in the log skipped)");
		expect(level).toBe("warning");
	});

	it("filters by time, source, session and limit", async () => {
		const agentDir = writeLog();
		const summaries = async (args: string) =>
			(await runHistory(args, env(agentDir), NOW)).text
				.split("\n")
				.slice(1)
				.filter((l) => !l.startsWith("("));
		expect(await summaries("--since 24h --source main")).toEqual([
			expect.stringContaining("a test for the empty cart is missing"),
		]);
		expect(await summaries("--since 2025-06-28 --source main")).toHaveLength(2);
		expect(await summaries("--source lsp,review")).toEqual([
			expect.stringContaining("src/a.ts:3 Type"),
			expect.stringContaining("boundary · acme"),
		]);
		expect((await runHistory("--limit 2", env(agentDir), NOW)).text.split("\n")[0]).toBe(
			"Watchdog history in this project (/repo): 2 events, newest first (the newest 2; --limit shows more)",
		);
		expect(await summaries("--session s-other")).toEqual([expect.stringContaining("other project")]);
		expect((await runHistory("--session current --since 10m", env(agentDir), NOW)).text).toBe(
			"No watchdog history in this session in the last 10m.\n(1 unreadable line in the log skipped)",
		);
	});

	it("--json gives one JSON object per line, the events as logged", async () => {
		const agentDir = writeLog();
		const { text } = await runHistory({ since: "6h", sources: ["lsp", "loops"], json: true }, env(agentDir), NOW);
		const objects = text.split("\n").map((l) => JSON.parse(l) as HistoryEvent);
		expect(objects).toEqual([
			{
				at: new Date(NOW.getTime() - 2 * HOUR).toISOString(),
				session: "s-here",
				cwd: "/repo",
				kind: "loop-resolved",
				summary: "the repeated read of src/a.ts ended with an edit",
			},
			expect.objectContaining({ kind: "finding", source: "lsp", fate: "sent to the agent" }),
		]);
		expect((await runHistory("--json --session nobody", env(agentDir), NOW)).text).toBe("");
	});

	it("answers a bad flag with an error, and an empty agent folder with nothing found", async () => {
		expect(await runHistory("--since soon", env(tempDir()), NOW)).toEqual({
			text: expect.stringMatching(/^Watchdog: --since soon is neither/),
			level: "error",
		});
		expect(await runHistory("", env(tempDir()), NOW)).toEqual({
			text: "No watchdog history in this project (/repo).",
			level: "info",
		});
	});

	it("--kind failure lists failed reviews beside failure lines, and nothing that went well", async () => {
		const agentDir = tempDir();
		mkdirSync(historyDir(agentDir), { recursive: true });
		const review = (at: number, outcome: string) =>
			base(at, {
				kind: "review",
				trigger: "boundary",
				model: "acme/gpt-5.5",
				thinking: "high",
				durationMs: 60_000,
				tokens: 0,
				cost: 0,
				outcome,
				paths: 1,
				...(outcome === "failed" ? { failure: { kind: "timeout", message: "no answer within 60000 ms" } } : {}),
			});
		const events = [
			review(NOW.getTime() - 3 * HOUR, "clean"),
			review(NOW.getTime() - 2 * HOUR, "failed"),
			base(NOW.getTime() - HOUR, { kind: "failure", what: "check", message: "acme/gpt-5.5: 401" }),
		];
		const lines = events.map(({ at, event }) => {
			const shaped = eventLine(event, new Date(at));
			if (!shaped.ok) throw new Error(shaped.error);
			return shaped.line;
		});
		writeFileSync(`${historyDir(agentDir)}/${HISTORY_FILE}`, lines.join(""));
		const text = (await runHistory("--kind failure", env(agentDir), NOW)).text;
		expect(text.split("\n").slice(1)).toEqual([
			expect.stringContaining("check: acme/gpt-5.5: 401"),
			expect.stringMatching(/review .*failed.*timeout: no answer within 60000 ms/),
		]);
	});

	it("counts children in English", () => {
		const verification = (children: number) =>
			describeEvent({
				at: NOW.toISOString(),
				session: "s",
				cwd: "/r",
				kind: "verification",
				children,
				verdicts: "genuine",
				fingerprint: "abcdef0123456789",
				via: "the main session",
				outcome: "clean",
			} as unknown as HistoryEvent);
		expect(verification(2)).toMatch(/^2 children · /);
		expect(verification(1)).toMatch(/^1 child · /);
	});

	it("describes kinds it does not know yet by their summary", () => {
		expect(
			describeEvent({
				at: NOW.toISOString(),
				session: "s",
				cwd: "/r",
				kind: "nudge",
				summary: "asked the agent to run the tests it announced",
				outcome: "delivered",
			}),
		).toBe("asked the agent to run the tests it announced → delivered");
	});
});
