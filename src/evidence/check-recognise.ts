// Checks the keyword list in loops/checks.ts does not name: a project's own test script, a
// runner called by its path, framework CLIs, smoke scripts; and any command whose output is a
// test runner's or a build's summary, whatever it was called. Also whether a check saw only
// part of what it checks (one package, output filtered through grep or cut by head). Pure.

export type CheckKind = "test" | "build" | "typecheck" | "lint";

/** A program (after wrappers) that runs a check with one of these first arguments. */
const FRAMEWORK_CHECKS: Record<string, Array<[RegExp, CheckKind]>> = {
	next: [
		[/^build$/, "build"],
		[/^lint$/, "lint"],
	],
	vite: [[/^build$/, "build"]],
	hardhat: [
		[/^test$/, "test"],
		[/^compile$/, "build"],
	],
	forge: [
		[/^test$/, "test"],
		[/^build$/, "build"],
	],
	swift: [
		[/^test$/, "test"],
		[/^build$/, "build"],
	],
	flutter: [
		[/^test$/, "test"],
		[/^build$/, "build"],
		[/^analyze$/, "lint"],
	],
	rake: [[/^(test|spec)$/, "test"]],
	artisan: [[/^test$/, "test"]],
	turbo: [
		[/^(?:run\s+)?test/, "test"],
		[/^(?:run\s+)?build/, "build"],
	],
	nx: [
		[/^(?:run-many|affected)?.*\btest\b/, "test"],
		[/^(?:run-many|affected)?.*\bbuild\b/, "build"],
	],
	playwright: [[/^test$/, "test"]],
	cypress: [[/^run$/, "test"]],
	tsx: [[/^--test$/, "test"]],
};

const SKIP = new Set(["npx", "bunx", "pnpx", "exec", "time", "env", "nice", "command", "sudo", "uv", "poetry", "run"]);
/** A script or runner whose file name says it runs tests, checks or smoke tests. */
const TEST_SCRIPT = /(?:^|[/_.-])(?:run[_-]?)?(?:tests?|specs?|smoke|e2e)(?:[_.-]|$)/i;
const RUNNER_FILE = /(?:^|\/)(vitest|jest|mocha|ava|tsc|eslint|biome|playwright)(?:\.m?js|\.cjs)?$/;

/** The check a command runs by its name, beyond the keyword list. */
export function scriptCheck(command: string): CheckKind | undefined {
	for (const stage of command.split(/&&|\|\||;|\|/)) {
		const words = stage.trim().split(/\s+/);
		let i = 0;
		while (i < words.length && (SKIP.has(words[i] as string) || /^[A-Za-z_]\w*=/.test(words[i] as string))) i++;
		const program = (words[i] ?? "").replace(/^.*\//, "");
		const rest = words.slice(i + 1).join(" ");
		for (const [pattern, kind] of FRAMEWORK_CHECKS[program] ?? []) if (pattern.test(rest)) return kind;
		if (program === "php" && /^artisan test\b/.test(rest)) return "test";
		if (program === "bundle" && /^exec (rspec|rake test)/.test(rest)) return "test";
		// `node node_modules/vitest/vitest.mjs run`, `python tests/smoke_test.py`, `bash run_tests.sh`.
		const script = /^(node|python3?|bash|sh|zsh|deno|bun|ts-node|tsx)$/.test(program)
			? words.slice(i + 1).find((w) => !w.startsWith("-"))
			: (words[i] ?? "");
		if (!script) continue;
		const runner = RUNNER_FILE.exec(script);
		if (runner)
			return runner[1] === "tsc" ? "typecheck" : runner[1] === "eslint" || runner[1] === "biome" ? "lint" : "test";
		if (/\/(?:vitest|jest|mocha)\//.test(script)) return "test";
		const base = script.replace(/^.*\//, "");
		if (/\.(sh|py|js|mjs|ts|rb)$/.test(base) && TEST_SCRIPT.test(base.replace(/\.\w+$/, ""))) return "test";
	}
	return undefined;
}

/** Summary lines that only a test runner prints, with or without failures. */
const TEST_SUMMARY: RegExp[] = [
	/\bTests?:?\s+(?:\d+ (?:passed|failed|skipped|todo)[, ]*)+/i,
	/\bTest Files\s+\d+/,
	/^\s*\d+ (?:passing|failing)\b/m,
	/\bRan \d+ tests? in [\d.]+s\b/,
	/=+ (?:.*\b)?\d+ (?:passed|failed)(?:.*\b)? in [\d.]+s/,
	/\btest result: (?:ok|FAILED)\. \d+ passed/,
	/\b\d+ (?:tests?|examples?|specs?), \d+ failures?\b/,
	/\bPASS \(\d+\) FAIL \(\d+\)/,
	/ℹ (?:pass|fail) \d+/,
	/\b(?:All )?\d+ tests? (?:passed|failed|succeeded)\b/i,
	/^(?:OK|FAILED) \((?:tests|failures|errors)=\d+/m,
];
const BUILD_SUMMARY: RegExp[] = [
	/\bCompiled successfully\b|\bFailed to compile\b/,
	/\bBUILD (?:SUCCESSFUL|FAILED)\b/,
	/\bbuild (?:succeeded|completed|failed)\b/i,
	/✓ built in [\d.]+m?s/,
	/\bFinished `?\w+`? profile\b/,
	/\bCreating an optimized production build\b/,
	/\bwebpack \d[\d.]* compiled\b/,
];

const SUMMARY_WORDS = /pass|fail|\bOK\b|\bok\.|compiled|built|BUILD|Finished|\bRan \d|succeeded|completed/i;

/** Commands that show a file or search text: a log they print is not a run of the check it records. */
const SHOWS_TEXT = /^(?:cat|head|tail|less|more|grep|rg|ag|sed|awk|jq|ls|find|echo|printf|git|wc|diff|bat)\b/;

/** The check a command's output shows it ran, from a runner's or a build's summary line. */
export function checkFromOutput(command: string, output: string): CheckKind | undefined {
	if (SHOWS_TEXT.test(command)) return undefined;
	// Every summary names a pass, a failure or a build: most outputs are ruled out by one search.
	if (!SUMMARY_WORDS.test(output)) return undefined;
	// The summary is at the end; a long output is looked at in its head and its tail.
	const text = output.length > 3000 ? `${output.slice(0, 1000)}\n${output.slice(-2000)}` : output;
	if (TEST_SUMMARY.some((r) => r.test(text))) return "test";
	if (BUILD_SUMMARY.some((r) => r.test(text))) return "build";
	return undefined;
}

/** A grep that keeps what a check reports (errors, failures, the summary) hides nothing that matters. */
const KEEPS_VERDICT = /err|fail|warn|pass|✓|✗|×|summary|tests?\b|total|found|problem/i;

/**
 * Why a check's run saw only part of what it checks: one workspace package, or its output
 * filtered through grep for something else, or cut by head where the cut hid the rest.
 */
export function partialCheck(command: string, output: string): string | undefined {
	const filter = /(?:--filter|--workspace|-w|--scope)[= ]\s*(\S+)/.exec(command);
	if (filter) return `it ran for one package only (${filter[0].trim()})`;
	const project = /\b(?:tsc|tsgo)\b[^|;&]*\s(?:-p|--project)\s+(\S*\/\S+)/.exec(command);
	if (project && !/^(?:\.\/)?tsconfig[\w.-]*\.json$/.test(project[1] as string))
		return `it type-checked one project only (${project[1]})`;
	const grep = /\|\s*(?:grep|rg)\s+((?:-\S+\s+)*)("[^"]*"|'[^']*'|\S+)/.exec(command);
	if (grep && !/-v\b/.test(grep[1] ?? "") && !KEEPS_VERDICT.test(grep[2] as string))
		return `its output went through \`grep ${grep[2]}\`, which keeps only the lines that name it`;
	const head = /\|\s*head\s+(?:-n\s*)?-?(\d+)/.exec(command);
	if (head && output.split("\n").filter((l) => l.trim()).length >= Number(head[1]))
		return `its output was cut at ${head[1]} lines by \`head\`, before the runner's summary`;
	return undefined;
}

/** A command that leaves work running after it returns: a detached container, a session, a service, a CI run. */
const DETACHED = new RegExp(
	String.raw`\bdocker(?:-compose| compose)?\s+(?:run|up|start)\b[^|;&]*\s-d\b|\btmux\s+new(?:-session)?\b[^|` +
		String.raw`;&]*\s-d\b|\bscreen\s+-d?m|\bpm2\s+start\b|\bsystemctl\s+(?:--user\s+)?(?:start|restart)\b|` +
		String.raw`\bgh\s+(?:workflow\s+run|run\s+rerun)\b|\bkubectl\s+(?:apply|rollout)\b`,
);

/** Whether a call started work that goes on after it returns. */
export function startsBackground(command: string | undefined, args: Record<string, unknown>): boolean {
	if (args.run_in_background === true || args.background === true || args.async === true || args.is_background === true)
		return true;
	return command !== undefined && DETACHED.test(command);
}
