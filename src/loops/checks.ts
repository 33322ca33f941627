// Which shell commands are checks (test runs, builds, type checks, linters), and which may
// change the files they check. A check's answer is a function of the workspace, so running it
// again while nothing has changed can only repeat what it said. Pure.

/** Programs that are checks whatever their arguments. */
const CHECK_PROGRAMS = new Set([
	"vitest",
	"jest",
	"mocha",
	"ava",
	"pytest",
	"tox",
	"tsc",
	"tsgo",
	"eslint",
	"mypy",
	"pyright",
	"phpunit",
	"rspec",
]);

/** Programs that are checks with one of these first arguments (`npm test`, `cargo build`). */
const CHECK_SUBCOMMANDS: Record<string, RegExp> = {
	npm: /^(test|t|build|lint|typecheck|type-check|check|tsc)(:|$)/,
	pnpm: /^(test|t|build|lint|typecheck|type-check|check|tsc)(:|$)/,
	yarn: /^(test|build|lint|typecheck|type-check|check|tsc)(:|$)/,
	bun: /^(test|build|lint|typecheck|type-check|check)(:|$)/,
	node: /^--test$/,
	deno: /^(test|check|lint)$/,
	cargo: /^(test|build|check|clippy|nextest)$/,
	go: /^(test|build|vet)$/,
	make: /^(test|check|build|all|lint)?$/,
	mvn: /^(test|verify|package|compile)$/,
	gradle: /^(test|build|check)$/,
	gradlew: /^(test|build|check)$/,
	dotnet: /^(test|build)$/,
	ruff: /^(check)?$/,
	biome: /^(check|lint|ci)$/,
};

/** Wrappers in front of the program: `npx vitest`, `time npm test`, `timeout 60 cargo test`. */
const WRAPPERS = new Set(["npx", "bunx", "pnpx", "exec", "time", "env", "nice", "command"]);

/** The last command asked about each way: the loop detector and the evidence facts ask in turn about each call's. */
const lastCheck = { command: undefined as string | undefined, answer: false };
const lastWrite = { command: undefined as string | undefined, answer: false };

/** Whether a (normalised) command runs a check: tests, a build, a type check or a linter. */
export function isCheckCommand(command: string): boolean {
	if (command !== lastCheck.command) {
		lastCheck.answer = runsCheck(command);
		lastCheck.command = command;
	}
	return lastCheck.answer;
}

function runsCheck(command: string): boolean {
	return command.split(/&&|\|\||;|\||\(|\)/).some((segment) => isCheckSegment(segment.trim().split(/\s+/)));
}

function isCheckSegment(words: string[]): boolean {
	let i = 0;
	for (;;) {
		const w = words[i];
		if (w === undefined) return false;
		if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || WRAPPERS.has(w)) i++;
		else if (w === "timeout")
			i += 2; // timeout DURATION
		else if ((w === "pnpm" || w === "yarn") && words[i + 1] === "exec") i += 2;
		else if ((w === "npm" || w === "pnpm" || w === "yarn" || w === "bun") && words[i + 1] === "run") {
			// `npm run build`: the script name decides
			return CHECK_SUBCOMMANDS.npm.test(words[i + 2] ?? "");
		} else break;
	}
	const program = words[i].replace(/^.*\//, "");
	if (CHECK_PROGRAMS.has(program)) return true;
	const next = words[i + 1] ?? "";
	if (program === "python" || program === "python3")
		return next === "-m" && /^(pytest|unittest|mypy|tox)$/.test(words[i + 2] ?? "");
	return CHECK_SUBCOMMANDS[program]?.test(next) ?? false;
}

/** Redirections into a file; `2>&1`, /dev/null and temp files do not touch the workspace. */
const REDIRECT = /(^|[^0-9&<>])(\d?>>?|&>>?)\s*(?!&\d)("[^"]*"|'[^']*'|[^\s;&|)]+)/g;
const HARMLESS_TARGET = /^['"]?(\/dev\/|\/tmp\/|\$TMPDIR|\$\{TMPDIR)/;

/** Commands that write or move files, switch or restore what is checked out, or install packages. */
const WRITERS: RegExp[] = [
	/(^|[\s;&|(])(sed|perl)\s+(-\S*\s+)*-i/,
	/(^|[\s;&|(])(tee|mv|cp|rm|touch|truncate|patch|install|ln)\s/,
	new RegExp(
		String.raw`(^|[\s;&|(])git\s+(-C\s+\S+\s+)?(apply|am|checkout|switch|restore|stash` +
			String.raw`|merge|rebase|pull|cherry-pick|revert|reset\s+--hard|clean)\b`,
	),
	/(^|[\s;&|(])(npm|pnpm|yarn|bun)\s+(install|i|ci|add|remove|uninstall|update|upgrade)\b/,
	/(^|[\s;&|(])(pip|pip3|uv|poetry|cargo)\s+(install|add|remove|sync|update)\b/,
];

/**
 * Whether a (normalised) shell command may have changed files in the workspace, so that a
 * check run after it may answer differently. Errs on the side of yes for the usual writers.
 */
export function mayChangeFiles(command: string): boolean {
	if (command !== lastWrite.command) {
		lastWrite.answer = writesFiles(command);
		lastWrite.command = command;
	}
	return lastWrite.answer;
}

function writesFiles(command: string): boolean {
	for (const m of command.matchAll(REDIRECT)) if (!HARMLESS_TARGET.test(m[3])) return true;
	return WRITERS.some((w) => w.test(command));
}
