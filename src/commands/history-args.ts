// `/subagents-watchdog history` flags (and the `watchdog.history` tool action's fields): what
// they mean, how they are checked, and how they complete. Pure.
import { HISTORY_KINDS } from "../findings/index.ts";
import type { HistoryFilter } from "../findings/index.ts";

/** What was asked, before it is checked: the command's flags and the tool's fields alike. */
export interface HistoryRequest {
	/** "current" or a session id; left out: this project, every session. */
	session?: string;
	/** "24h", "7d", "90m", "2w", or an ISO date/time. */
	since?: string;
	sources?: string[];
	kinds?: string[];
	limit?: number | string;
	json?: boolean;
}

/** Where the question is asked from. */
export interface HistoryScope {
	sessionId: string;
	cwd: string;
}

export interface HistoryQuery {
	filter: HistoryFilter;
	json: boolean;
	/** Says in words what was asked, for the header and the "nothing found" line. */
	described: string;
}

export const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 10_000;
export const KNOWN_SOURCES = ["review", "main", "lsp", "loops", "claims", "config", "failure"] as const;

export const HISTORY_USAGE =
	"history [--session current|ID] [--since 24h|7d|90m|ISO] [--source review|main|lsp|loops|claims|<role>,…] " +
	"[--kind review|finding|…] [--limit N] [--json]";

const VALUE_FLAGS = ["--session", "--since", "--source", "--kind", "--limit"] as const;
const FLAGS = [...VALUE_FLAGS, "--json"] as const;

/** The words after `history`. */
export function parseHistoryArgs(
	words: readonly string[],
): { ok: true; request: HistoryRequest } | { ok: false; error: string } {
	const request: HistoryRequest = {};
	const fail = (error: string) => ({
		ok: false as const,
		error: `${error}\nUsage: /subagents-watchdog ${HISTORY_USAGE}`,
	});
	for (let i = 0; i < words.length; i++) {
		const word = words[i];
		const eq = word.indexOf("=");
		const flag = eq > 0 && word.startsWith("--") ? word.slice(0, eq) : word;
		if (flag === "--json") {
			if (eq > 0) return fail("--json takes no value");
			request.json = true;
			continue;
		}
		if (!(VALUE_FLAGS as readonly string[]).includes(flag)) {
			return fail(
				word.startsWith("-") ? `unknown flag ${flag} for history` : `unexpected "${word}": history takes only flags`,
			);
		}
		const value = eq > 0 ? word.slice(eq + 1) : words[++i];
		if (value === undefined || value === "" || (eq < 0 && value.startsWith("--"))) return fail(`${flag} needs a value`);
		switch (flag) {
			case "--session":
				request.session = value;
				break;
			case "--since":
				request.since = value;
				break;
			case "--limit":
				request.limit = value;
				break;
			case "--source":
				request.sources = [...(request.sources ?? []), ...splitList(value)];
				break;
			case "--kind":
				request.kinds = [...(request.kinds ?? []), ...splitList(value)];
				break;
		}
	}
	return { ok: true, request };
}

/** Checks a request and turns it into a filter; `now` anchors relative times. */
export function toQuery(
	request: HistoryRequest,
	scope: HistoryScope,
	now: Date,
): { ok: true; query: HistoryQuery } | { ok: false; error: string } {
	const filter: HistoryFilter = {};
	const words: string[] = [];
	const session = request.session?.trim();
	if (session === undefined || session === "") {
		filter.cwd = scope.cwd;
		words.push(`in this project (${scope.cwd})`);
	} else if (session === "current") {
		if (!scope.sessionId) return { ok: false, error: "this session has no id to filter by; give --session an id" };
		filter.session = scope.sessionId;
		words.push("in this session");
	} else {
		filter.session = session;
		words.push(`in session ${session}`);
	}
	if (request.since !== undefined) {
		const since = parseSince(request.since, now);
		if (!since.ok) return since;
		filter.since = since.date;
		words.push(since.relative ? `in the last ${request.since.trim()}` : `since ${since.date.toISOString()}`);
	}
	const sources = cleanList(request.sources);
	if (sources.length) {
		filter.sources = sources;
		words.push(`from ${sources.join(", ")}`);
	}
	const kinds = cleanList(request.kinds);
	const unknown = kinds.filter((k) => !(HISTORY_KINDS as readonly string[]).includes(k));
	if (unknown.length)
		return { ok: false, error: `unknown kind ${unknown.join(", ")}; kinds are ${HISTORY_KINDS.join(", ")}` };
	if (kinds.length) {
		filter.kinds = kinds;
		words.push(`of kind ${kinds.join(", ")}`);
	}
	const limit = parseLimit(request.limit);
	if (!limit.ok) return limit;
	filter.limit = limit.value;
	return { ok: true, query: { filter, json: request.json === true, described: words.join(" ") } };
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "90m", "24h", "7d", "2w" back from `now`, or an ISO date ("2025-06-01") or date-time. */
export function parseSince(
	text: string,
	now: Date,
): { ok: true; date: Date; relative: boolean } | { ok: false; error: string } {
	const value = text.trim();
	const relative = /^(\d+)\s*([mhdw])$/i.exec(value);
	if (relative) {
		const amount = Number(relative[1]);
		if (amount <= 0) return { ok: false, error: `--since ${value}: the amount must be more than 0` };
		return { ok: true, date: new Date(now.getTime() - amount * UNIT_MS[relative[2].toLowerCase()]), relative: true };
	}
	// Only something that looks like a date: Date.parse takes "1" or "June" too.
	if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
		const ms = Date.parse(value);
		if (!Number.isNaN(ms)) return { ok: true, date: new Date(ms), relative: false };
	}
	return {
		ok: false,
		error:
			`--since ${value} is neither a duration (90m, 24h, 7d, 2w) nor an ISO date or ` +
			`time (2025-06-01, 2025-06-01T14:00Z)`,
	};
}

function parseLimit(value: number | string | undefined): { ok: true; value: number } | { ok: false; error: string } {
	if (value === undefined) return { ok: true, value: DEFAULT_LIMIT };
	const n = typeof value === "number" ? value : /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
	if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT)
		return { ok: false, error: `--limit ${value}: must be a whole number from 1 to ${MAX_LIMIT}` };
	return { ok: true, value: n };
}

function splitList(value: string): string[] {
	return value.split(",").map((s) => s.trim());
}

function cleanList(values: readonly string[] | undefined): string[] {
	return [...new Set((values ?? []).map((v) => v.trim()).filter(Boolean))];
}

/** Options for the word being typed, given the words after `history` already complete. */
export function completeHistory(done: readonly string[]): Array<[string, string]> {
	const last = done.at(-1);
	switch (last) {
		case "--session":
			return [["current", "this session only"]];
		case "--since":
			return [
				["24h", "the last 24 hours"],
				["7d", "the last 7 days"],
				["90m", "the last 90 minutes"],
			];
		case "--source":
			return KNOWN_SOURCES.map((s) => [s, ""]);
		case "--kind":
			return HISTORY_KINDS.map((k) => [k, ""]);
		case "--limit":
			return [
				["20", ""],
				["50", ""],
				["100", ""],
			];
	}
	const used = new Set(done.filter((w) => w.startsWith("--")));
	const describe: Record<(typeof FLAGS)[number], string> = {
		"--session": "current or a session id (default: this project, all sessions)",
		"--since": "24h, 7d, 90m or an ISO date",
		"--source": "review, main, lsp, loops, claims, rotate, a child role",
		"--kind": "review, finding, loop-resolved, failure, …",
		"--limit": `how many (default ${DEFAULT_LIMIT})`,
		"--json": "one JSON object per line",
	};
	return FLAGS.filter((f) => f === "--source" || f === "--kind" || !used.has(f)).map((f) => [f, describe[f]]);
}
