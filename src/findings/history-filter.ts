// Which history lines a reader wants. Pure. Lines are judged in two steps: a cheap look at the
// raw text (the `at` prefix, whether the wanted session or cwd appears at all), and only a line
// that passes is parsed and checked exactly.
import type { HistoryEvent } from "./history-event.ts";

export interface HistoryFilter {
	/** Only this Pi session. */
	session?: string;
	/** Only events at or after this time. */
	since?: Date;
	/** Only these sources (see `sourceOf`). */
	sources?: readonly string[];
	/** Only these kinds. */
	kinds?: readonly string[];
	/** Only events recorded in this working directory. */
	cwd?: string;
	/** At most this many events (the newest). */
	limit?: number;
}

/**
 * The source an event is filed under: a finding's own source (main, a child role, lsp, loops,
 * claims…); "review" for a review; "loops" for a resolved loop; "config" for a settings change;
 * "failure" for a failure; "permissions" for a permission step; "rotate" for a rotation; a later kind's own
 * source, else its kind.
 */
export function sourceOf(event: HistoryEvent): string {
	switch (event.kind) {
		case "finding":
			return event.source;
		case "review":
			return "review";
		case "loop-resolved":
			return "loops";
		case "config-change":
			return "config";
		case "failure":
			return "failure";
		case "permission":
			return "permissions";
		case "rotate":
			return "rotate";
		default: {
			const e = event as { source?: unknown; kind: string };
			return typeof e.source === "string" ? e.source : e.kind;
		}
	}
}

export function matches(event: HistoryEvent, filter: HistoryFilter): boolean {
	if (filter.session !== undefined && event.session !== filter.session) return false;
	if (filter.cwd !== undefined && event.cwd !== filter.cwd) return false;
	if (filter.since && !(Date.parse(event.at) >= filter.since.getTime())) return false;
	if (
		filter.kinds?.length &&
		!filter.kinds.includes(event.kind) &&
		!(filter.kinds.includes("failure") && failed(event))
	)
		return false;
	// A child role names its source, and all that child's lines (its nudges, loops, claims, reviews) as well.
	if (
		filter.sources?.length &&
		!filter.sources.includes(sourceOf(event)) &&
		!(event.role !== undefined && filter.sources.includes(event.role)) &&
		!filter.sources.some((s) => pathMatches(event.path, s) || pathMatches(childOf(event), s))
	)
		return false;
	return true;
}

/** What `--kind failure` lists besides failure lines: reviews that failed and arbiter failures. */
function failed(event: HistoryEvent): boolean {
	if (event.kind === "review") return event.outcome === "failed";
	if (event.kind === "permission") return event.how === "failure";
	return false;
}

/** `worker > tester` is asked for by its whole path, spaces around `>` or not. */
function pathMatches(path: string | undefined, wanted: string): boolean {
	const fold = (p: string) =>
		p
			.split(">")
			.map((part) => part.trim())
			.join(">");
	return path !== undefined && wanted.includes(">") && fold(path) === fold(wanted);
}

/** The child a finding rose from, in a parent's log. */
function childOf(event: HistoryEvent): string | undefined {
	return event.kind === "finding" ? event.child : undefined;
}

/** The raw-text tests a line must pass before it is worth parsing. */
export interface LineTest {
	/** Strings the line must contain (JSON-encoded values of exact-match filters). */
	needles: string[];
}

export function lineTest(filter: HistoryFilter): LineTest {
	const needles: string[] = [];
	// JSON.stringify gives the value exactly as the writer encoded it inside the line.
	if (filter.session !== undefined) needles.push(`"session":${JSON.stringify(filter.session)}`);
	if (filter.cwd !== undefined) needles.push(`"cwd":${JSON.stringify(filter.cwd)}`);
	// A failure is also a review that failed: "failure" alone cannot be judged by its kind's text.
	if (filter.kinds?.length === 1 && filter.kinds[0] !== "failure")
		needles.push(`"kind":${JSON.stringify(filter.kinds[0])}`);
	return { needles };
}

export function mayMatch(line: string, test: LineTest): boolean {
	for (const needle of test.needles) if (!line.includes(needle)) return false;
	return true;
}

const AT_PREFIX = '{"at":"';
/** Length of `new Date().toISOString()` for years 0–9999: these compare as strings in time order. */
const ISO_LENGTH = 24;

/** The `at` of a line written by us, read from its first bytes; undefined when the line does not start that way. */
export function lineTime(line: string): string | undefined {
	if (!line.startsWith(AT_PREFIX)) return undefined;
	const at = line.slice(AT_PREFIX.length, AT_PREFIX.length + ISO_LENGTH);
	return at.length === ISO_LENGTH && at[ISO_LENGTH - 1] === "Z" && line[AT_PREFIX.length + ISO_LENGTH] === '"'
		? at
		: undefined;
}

/** Newest first; events of the same time keep their order. */
export function newestFirst(events: HistoryEvent[]): HistoryEvent[] {
	return events
		.map((event, i) => ({ event, i, t: Date.parse(event.at) }))
		.sort((a, b) => b.t - a.t || a.i - b.i)
		.map((x) => x.event);
}
