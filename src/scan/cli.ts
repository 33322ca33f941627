// `pi-watchdog scan [--json] [--all] [--since AGE] [--strict] [PATH...]`: the deterministic
// detectors over recorded sessions. Exit 0 whenever at least one session was scanned, whatever
// it found (with --strict, 1 when a session was flagged: a CI gate); 2 when nothing could be
// read (or the command line is wrong).
import { findSessionFiles } from "./find-files.ts";
import { UNKNOWN_FORMAT } from "./formats.ts";
import { piSessionPlace, sessionHeaderCwd } from "./pi-sessions.ts";
import { reportText, type ScanReport, scanSession } from "./scan-session.ts";
import { type Skipped, skippedText, summaryText } from "./summary.ts";

const USAGE = `usage: pi-watchdog scan [--json] [--all] [--since AGE] [--strict] [PATH...]

Runs the watchdog's deterministic detectors over recorded agent sessions: Pi session files,
pi-subagents transcripts (JSONL), Claude Code project logs (JSONL) and Claude Code Markdown
exports; the format is recognised from the content. A PATH that is a folder is searched for
.jsonl and .md files. Without a PATH it scans this project's Pi sessions; --all scans every
project's. --since 7d keeps files modified in the last 7 days (h, d or w; or a date
YYYY-MM-DD). Prints a report per file and a summary, or with --json one JSON object per line
per file and nothing else. Exit codes: 0 scanned; 1 with --strict when any session was flagged
(a loop, a contradicted claim or an unfinished stop); 2 nothing could be read, or bad usage.`;

/** Progress is drawn from this many files on. */
const PROGRESS_FROM = 20;

interface Args {
	json: boolean;
	all: boolean;
	strict: boolean;
	since?: number;
	paths: string[];
}

export interface CliOptions {
	/** Whether stderr is a terminal (progress is drawn only then). */
	stderrIsTTY?: boolean;
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	now?: number;
}

export async function main(
	argv: string[],
	out: (s: string) => void = (s) => process.stdout.write(s),
	err: (s: string) => void = (s) => process.stderr.write(s),
	options: CliOptions = {},
): Promise<number> {
	const [command, ...rest] = argv;
	if (command === "--help" || command === "-h" || command === "help") {
		out(`${USAGE}\n`);
		return 0;
	}
	if (command !== "scan") {
		err(`${command ? `unknown command "${command}"` : "no command given"}\n${USAGE}\n`);
		return 2;
	}
	const args = parseArgs(rest, options.now ?? Date.now());
	if (typeof args === "string") {
		err(`${args}\n${USAGE}\n`);
		return 2;
	}
	const found = locate(args, options);
	const skipped: Skipped[] = [...found.skipped];
	const reports: ScanReport[] = [];
	const progress = (options.stderrIsTTY ?? process.stderr.isTTY === true) && found.files.length >= PROGRESS_FROM;
	for (const [i, file] of found.files.entries()) {
		if (progress) err(`\rpi-watchdog scan: ${i + 1}/${found.files.length} files`);
		try {
			const report = await scanSession(file);
			reports.push(report);
			out(args.json ? `${JSON.stringify(report)}\n` : `${reportText(report)}\n\n`);
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			skipped.push({ path: file, reason: message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message });
		}
	}
	if (progress) err("\r\x1b[K");
	if (skipped.length) err(`${skippedText(skipped, UNKNOWN_FORMAT)}\n`);
	if (!args.json && (reports.length || skipped.length)) out(`${summaryText(reports, skipped, found.older)}\n`);
	const flagged = (r: ScanReport) => r.loop.flagged || r.claims.flagged || r.idle.flagged;
	if (reports.length) return args.strict && reports.some(flagged) ? 1 : 0;
	if (!found.files.length && !skipped.length)
		err(
			`pi-watchdog scan: no session files found${found.where}` +
				`${found.older ? " modified since the --since time" : ""}\n`,
		);
	return 2;
}

function parseArgs(rest: string[], now: number): Args | string {
	const args: Args = { json: false, all: false, strict: false, paths: [] };
	for (let i = 0; i < rest.length; i++) {
		const arg = rest[i] as string;
		if (arg === "--json") args.json = true;
		else if (arg === "--all") args.all = true;
		else if (arg === "--strict") args.strict = true;
		else if (arg === "--since" || arg.startsWith("--since=")) {
			const value = arg === "--since" ? rest[++i] : arg.slice("--since=".length);
			const since = value === undefined ? undefined : parseSince(value, now);
			if (since === undefined)
				return (
					`--since needs an age like 7d, 12h or 2w, or a date YYYY-MM-DD` +
					`${value === undefined ? "" : ` (got "${value}")`}`
				);
			args.since = since;
		} else if (arg.startsWith("-") && arg !== "-") return `unknown option ${arg}`;
		else args.paths.push(arg);
	}
	if (args.all && args.paths.length) return "--all scans every Pi session; give it no PATH";
	return args;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** The time `value` means: an age back from `now` (7d, 12h, 2w) or a calendar date. */
export function parseSince(value: string, now: number): number | undefined {
	const age = /^(\d+)([hdw])$/.exec(value);
	if (age) return now - Number(age[1]) * (UNIT_MS[age[2] as string] as number);
	if (!/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : date;
}

/** The files the arguments name, or this project's (every project's) Pi sessions. */
function locate(args: Args, options: CliOptions): ReturnType<typeof findSessionFiles> & { where: string } {
	if (args.paths.length) return { ...findSessionFiles(args.paths, { since: args.since }), where: "" };
	const place = piSessionPlace(options.cwd ?? process.cwd(), args.all, options.env ?? process.env);
	const cwd = place.cwd;
	const keep = cwd ? (path: string, root: string) => sessionHeaderCwd(path, root) === cwd : undefined;
	const found = findSessionFiles([place.dir], { since: args.since, keep });
	// A project that never ran Pi has no session folder: that is "none found", not an error.
	const missing =
		found.skipped.length === 1 &&
		found.skipped[0]?.path === place.dir &&
		found.skipped[0].reason.includes("no such file");
	const where = ` in ${place.dir}${cwd ? ` for ${cwd}` : ""}`;
	return missing ? { files: [], skipped: [], older: 0, stats: new Map(), where } : { ...found, where };
}
