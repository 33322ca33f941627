// What every git process we start gets so that no program the repository configured runs:
// hooks, fsmonitor, pager, editor, external diff and textconv are switched off on the command
// line; filter and merge drivers cannot be switched off in general (their names come from the
// repository's attributes), so the ones the repository's own config defines are found with one
// `git config` listing (kept per folder while its config files do not change) and blanked.
// Drivers from your system and global config (git-lfs, say) are yours and still run.
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** Always on the command line. /dev/null as the hooks folder: no hook can ever be found in it. */
export const FIXED_CONFIG = [
	"core.hooksPath=/dev/null",
	"core.fsmonitor=false",
	"core.pager=cat",
	"core.editor=:",
	"sequence.editor=:",
	"submodule.recurse=false",
	"protocol.allow=never",
	"commit.gpgSign=false",
	"gc.auto=0",
	"maintenance.auto=false",
];

/** Subcommands that can show a diff: external diff programs and textconv are refused on theirs. */
const DIFF_COMMANDS = new Set(["diff", "diff-index", "diff-files", "diff-tree", "log", "show"]);

/**
 * Subcommands (as we call them) that never run a filter or merge driver, so need no listing.
 * Not among them: write-tree (it may refresh the index, which runs a clean filter), nor ls-files -m.
 */
const DRIVERLESS = new Set([
	"ls-files",
	"rev-parse",
	"config",
	"commit-tree",
	"diff-tree",
	"ls-tree",
	"merge-base",
	"rev-list",
	"for-each-ref",
	"show-ref",
	"symbolic-ref",
	"version",
]);

/** The repository's merge drivers are replaced by git's own three-way text merge (exit code = conflicts). */
const TEXT_MERGE = "git merge-file --marker-size=%L %A %O %B";

/** Inherited variables that would start a program of their own. */
export const PROGRAM_VARIABLES = ["GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR"];
export const QUIET_PROGRAMS = { GIT_PAGER: "cat", PAGER: "cat", GIT_EDITOR: ":", GIT_SEQUENCE_EDITOR: ":" };

function subcommandAt(args: string[]): number {
	return args.findIndex((a) => !a.startsWith("-"));
}

/** Whether `args` may make git run a filter or merge driver (checkout, add, status, merge...). */
export function mayRunDrivers(args: string[]): boolean {
	const at = subcommandAt(args);
	const name = at < 0 ? "" : args[at];
	if (name === "ls-files" && args.some((a) => a === "-m" || a === "--modified")) return true;
	if (DRIVERLESS.has(name)) return false;
	if (name === "read-tree") return args.some((a) => a === "-u" || a === "--reset");
	if (name === "worktree") return args[at + 1] === "add";
	return true;
}

export interface RepoDrivers {
	filters: string[];
	merges: string[];
}

/** The call's arguments after our settings, with diff programs refused after a diff subcommand. */
export function guardedArgs(args: string[]): string[] {
	const at = subcommandAt(args);
	const diff = at >= 0 && DIFF_COMMANDS.has(args[at]);
	const own = diff ? [...args.slice(0, at + 1), "--no-ext-diff", "--no-textconv", ...args.slice(at + 1)] : args;
	return [...FIXED_CONFIG.flatMap((c) => ["-c", c]), ...own];
}

/**
 * The drivers' blanking as GIT_CONFIG_COUNT entries added to `env`'s own: a key and its value
 * travel apart there, so a driver name holding "=" or spaces cannot be misread as `-c` would.
 */
export function driverEnv(drivers: RepoDrivers | undefined, env: NodeJS.ProcessEnv): Record<string, string> {
	const pairs: [string, string][] = [];
	for (const name of drivers?.filters ?? []) {
		for (const key of ["clean", "smudge", "process"]) pairs.push([`filter.${name}.${key}`, ""]);
		pairs.push([`filter.${name}.required`, "false"]);
	}
	for (const name of drivers?.merges ?? []) {
		pairs.push([`merge.${name}.driver`, TEXT_MERGE], [`merge.${name}.recursive`, "text"]);
	}
	if (pairs.length === 0) return {};
	const inherited = Number.parseInt(env.GIT_CONFIG_COUNT ?? "", 10);
	const first = Number.isSafeInteger(inherited) && inherited > 0 ? inherited : 0;
	const out: Record<string, string> = { GIT_CONFIG_COUNT: String(first + pairs.length) };
	pairs.forEach(([key, value], i) => {
		out[`GIT_CONFIG_KEY_${first + i}`] = key;
		out[`GIT_CONFIG_VALUE_${first + i}`] = value;
	});
	return out;
}

/** The listing runGit asks for: scope, origin, key and value of each entry that can define or pull in a driver. */
export const DRIVER_LISTING = [
	"config",
	"-z",
	"--show-scope",
	"--show-origin",
	"--get-regexp",
	"^(filter|merge|include|includeif|extensions|core)\\.",
];

interface Listed {
	drivers: RepoDrivers;
	/** Files whose change may change the drivers; undefined when the answer must not be kept. */
	watch?: string[];
}

/** Reads `DRIVER_LISTING`'s output: driver names from the repository's own config, and the files to watch. */
export function parseDriverListing(stdout: string, cwd: string): Listed {
	const filters = new Set<string>();
	const merges = new Set<string>();
	const watch = new Set<string>();
	let keep = true;
	const fields = stdout.split("\0");
	for (let i = 0; i + 2 < fields.length; i += 3) {
		const [scope, origin, entry] = [fields[i], fields[i + 1], fields[i + 2]];
		if (scope !== "local" && scope !== "worktree") continue;
		const nl = entry.indexOf("\n");
		// git prints section and variable in lower case, the subsection (the driver's name) as written.
		const key = nl < 0 ? entry : entry.slice(0, nl);
		const value = nl < 0 ? "" : entry.slice(nl + 1);
		const file = origin.startsWith("file:") ? resolve(cwd, origin.slice(5)) : undefined;
		if (file) watch.add(file);
		else keep = false; // a blob or stdin: nothing to watch
		const driver = /^(filter|merge)\.(.+)\.[^.]+$/s.exec(key);
		if (driver) (driver[1] === "filter" ? filters : merges).add(driver[2]);
		// A conditional include can depend on the branch, a worktree config on a file not listed yet.
		if (key.startsWith("includeif.") || key === "extensions.worktreeconfig") keep = false;
		if (key === "include.path" && file) watch.add(includedFile(value, file));
	}
	const drivers = { filters: [...filters], merges: [...merges] };
	return { drivers, watch: keep && watch.size > 0 ? [...watch] : undefined };
}

/** Where an `include.path` value leads, as git resolves it: `~/` from home, relative from the including file. */
function includedFile(value: string, from: string): string {
	if (value.startsWith("~/")) return join(homedir(), value.slice(2));
	return isAbsolute(value) ? value : resolve(dirname(from), value);
}

function signature(file: string): string {
	try {
		const s = statSync(file, { bigint: true });
		return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
	} catch {
		return "missing";
	}
}

const cache = new Map<string, { drivers: RepoDrivers; files: Map<string, string> }>();
const CACHE_MAX = 64;

/** The drivers last listed for `cwd`, when none of the files they came from changed since. */
export function cachedDrivers(cwd: string): RepoDrivers | undefined {
	const hit = cache.get(cwd);
	if (!hit) return undefined;
	for (const [file, sig] of hit.files) if (signature(file) !== sig) return undefined;
	return hit.drivers;
}

/**
 * Keeps a listing's answer for `cwd` while its files stay as they are now. (An edit landing
 * between git's read and this stat is missed until the next edit; only code that already runs
 * in the repository could time that, and it gains nothing it could not do itself.)
 */
export function keepDrivers(cwd: string, listed: Listed): void {
	cache.delete(cwd);
	if (!listed.watch) return;
	if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
	cache.set(cwd, { drivers: listed.drivers, files: new Map(listed.watch.map((f) => [f, signature(f)])) });
}
