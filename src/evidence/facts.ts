// What one tool call proves, as the claims checker and the unfinished-stop detector need it:
// did it change files, was it a check (tests, build, type check, lint) and did that check fail,
// its exit code and whether a pipe hid it, whether it was refused or blocked, whether it
// committed or pushed. Pure, and cheap: the result text is already cut to RESULT_CHARS.
import { isCheckCommand, mayChangeFiles, normalizeCommand } from "../loops/index.ts";
import type { ToolCallRecord } from "../transcript/index.ts";
import { memoPerCommand } from "../util/index.ts";
import { type CheckKind, checkFromOutput, partialCheck, scriptCheck, startsBackground } from "./check-recognise.ts";

export type { CheckKind } from "./check-recognise.ts";

export interface CallFact {
	index: number;
	name: string;
	kind: ToolCallRecord["kind"];
	/** bash: the command without cd/env prefixes, cut to 400 characters. */
	command?: string;
	path?: string;
	isError: boolean;
	/** An edit or write that changed a file. */
	wrote: boolean;
	/** A shell command that may have written files (a redirect, sed -i, git checkout, …). */
	shellWrite: boolean;
	/** Which kind of check the command runs, if it runs one. */
	check?: CheckKind;
	/** The exit code the result reports, if it reports one. */
	exitCode?: number;
	/** The command's status is its last pipe stage's (`| tail`, `| head`, `| grep` without pipefail). */
	piped: boolean;
	/** Why the check saw only part of what it checks (one package, output filtered or cut), if it did. */
	partial?: string;
	/** What in the output says the check failed ("3 failed", "error TS2304"), if anything. */
	failure?: string;
	/** Refused or blocked before it could act (permission, hook, budget guard), with the words that say so. */
	refused?: string;
	/** A commit or push that skips the hooks (`--no-verify`, `commit -n`). */
	bypass?: boolean;
	/** git commit / git push and how they went. */
	git?: { op: "commit" | "push"; ok: boolean; why?: string };
	/** Work started in the background (a shell job, a run_in_background call). */
	background: boolean;
	/** A poll that says its job is over. */
	finished: boolean;
	/**
	 * A tool the detectors do not know (an MCP writer, apply_patch): its arguments, cut, since it may have
	 * written the files they name.
	 */
	mentions?: string;
	/** A checklist tool (TodoWrite and the like): the items it marked done. */
	ticked?: string[];
	/** What the call answered, short: a call whose answer is new is progress. */
	outcome: string;
}

const TEST_PROGRAM = new RegExp(
	String.raw`\b(vitest|jest|mocha|ava|pytest|tox|phpunit|rspec|unittest|nextest)\b` +
		String.raw`|\b(npm|pnpm|yarn|bun|deno|cargo|go|dotnet|mix|make|gradle|gradlew` +
		String.raw`|mvn)\s+(run\s+)?(t|test)(:\S*)?\b|node\s+--test\b`,
);
const TYPECHECK = new RegExp(
	String.raw`\b(tsc|tsgo|mypy|pyright)\b|\b(npm|pnpm|yarn|bun)\s+(run\s+)?(typecheck` +
		String.raw`|type-check|tsc)\b|\bcargo\s+check\b|\bgo\s+vet\b`,
);
const LINT = /\b(eslint|ruff|biome|clippy|flake8|pylint)\b|\b(npm|pnpm|yarn|bun)\s+(run\s+)?lint\b/;
const BUILD =
	/\b(npm|pnpm|yarn|bun|cargo|go|dotnet|gradle|gradlew|mvn|mix)\s+(run\s+)?(build|compile|package)\b|\bmake\b/;

/** Which check a (normalised) command runs. */
export function checkKind(raw: string): CheckKind | undefined {
	// `npm --prefix pkg test`, `make -C dir test`: the folder option does not change what runs.
	const command = raw.replace(/\s(?:--prefix|--dir|--cwd|-C|--filter|-w|--workspace)[= ]\S+/g, "");
	if (!isCheckCommand(command) && !/\bmix\s+(test|compile)\b|\bpython3?\s+-m\s+pytest\b/.test(command))
		return undefined;
	if (TEST_PROGRAM.test(command)) return "test";
	if (TYPECHECK.test(command)) return "typecheck";
	if (LINT.test(command)) return "lint";
	if (BUILD.test(command)) return "build";
	return "test";
}

// Words in a check's output that mean it failed; counts of zero ("0 failed", "FAIL (0)") do not.
const FAILURE_MARKERS: RegExp[] = [
	/\b[1-9]\d* (?:tests? )?(?:failed|failing|failures?)\b/i,
	/\bFAIL \([1-9]\d*\)/,
	/ℹ fail [1-9]\d*/,
	/\bTests?:?\s+[1-9]\d* failed/i,
	/\berror TS\d{3,5}\b/,
	/\bFound [1-9]\d* errors?\b/,
	/\b[1-9]\d* errors? (?:found|generated)\b/i,
	/npm ERR!|^npm error\b|ERR_PNPM_\w+|error Command failed|^error: (?:script|command) .* (?:failed|not found)/m,
	/\bbuild failed\b|\bcompilation failed\b|\bfailed to compile\b/i,
	/^FAILED\b|^E\s+\w*Error\b|\bAssertionError\b/m,
	/\btest result: FAILED\b|\berror\[E\d{4}\]/,
];

/** Every marker names a failure or an error: most outputs are ruled out by this one search. */
const FAILURE_WORDS = /fail|err/i;

/** The words in an output that say a check failed, or undefined. */
export function failureIn(output: string): string | undefined {
	if (!FAILURE_WORDS.test(output)) return undefined;
	for (const marker of FAILURE_MARKERS) {
		const m = marker.exec(output);
		if (m) return m[0].trim().slice(0, 60);
	}
	return undefined;
}

const EXIT_CODE = /(?:Command exited with code|^Exit code|exited with (?:exit )?code|exit status)\s*:?\s*(\d+)/im;
/** A refusal, a hook's rejection or a harness guard, in the result of a call that failed. */
const REFUSAL = new RegExp(
	String.raw`(permission (?:was )?denied|requested permissions? to|haven't granted` +
		String.raw`|has not been granted|not (?:been )?(?:allowed|permitted)` +
		String.raw`|user (?:rejected|denied|declined)|(?:blocked|rejected) by (?:a ` +
		String.raw`|the )?(?:\w+ )?(?:hook|policy|guard|user)|hook (?:rejected|blocked` +
		String.raw`|failed)|pre-commit (?:hook )?(?:failed|rejected)|validation failed` +
		String.raw`|budget (?:hard )?limit|tool budget|is blocked|operation not permitted` +
		String.raw`|read-only file ?system|tool .{0,40} not found)`,
	"i",
);

/** Tools the detectors do not know whose names say they may write files, or hand work to another agent that may. */
const MAY_WRITE = /write|edit|patch|create|replace|insert|save|apply|move|rename|delete|remove|task|agent|delegate/i;

const PIPED_INTO = /\|\s*(?:tail|head|grep|less|more|cat|sed|awk|cut|sort|uniq|wc|tee|rtk)\b/;

function gitOp({ commit, push }: CommandFacts, result: string, isError: boolean): CallFact["git"] {
	if (!commit && !push) return undefined;
	if (push && !commit) {
		const bad =
			isError ||
			/\[rejected\]|failed to push|error: failed|rejected|denied|could not read from remote|fatal:/i.test(result);
		return { op: "push", ok: !bad, ...(bad ? { why: clipWhy(result) } : {}) };
	}
	const nothing = /nothing to commit|no changes added to commit/i.test(result);
	const hook = /hook|pre-commit|commit-msg/i.test(result) && (isError || /fail|reject|abort/i.test(result));
	const bad = isError || nothing || hook || /^fatal:|^error:/im.test(result);
	return {
		op: "commit",
		ok: !bad,
		...(bad
			? { why: nothing ? "nothing to commit" : hook ? `a hook rejected it: ${clipWhy(result)}` : clipWhy(result) }
			: {}),
	};
}

function clipWhy(text: string): string {
	const line = text.split("\n").find((l) => /\S/.test(l)) ?? "";
	return line.trim().slice(0, 100);
}

/** What a bash command alone says, whatever its result. */
interface CommandFacts {
	/** Normalised, cut to 400 characters. */
	command: string;
	shellWrite: boolean;
	/** The check its name says it runs. */
	check?: CheckKind;
	piped: boolean;
	commit: boolean;
	push: boolean;
	bypass: boolean;
	background: boolean;
}

/** What a command does, looked at once per command. */
const commandFacts = memoPerCommand((raw): CommandFacts => {
	const command = normalizeCommand(raw).slice(0, 400);
	const check = checkKind(command) ?? scriptCheck(command);
	const commit = /\bgit\s+(?:-C\s+\S+\s+)?commit\b/.test(command);
	const push = /\bgit\s+(?:-C\s+\S+\s+)?push\b/.test(command);
	return {
		command,
		shellWrite: mayChangeFiles(command),
		...(check ? { check } : {}),
		piped: PIPED_INTO.test(command) && !/\bpipefail\b/.test(command),
		commit,
		push,
		bypass: (commit || push) && /\s--no-verify\b|\bcommit\b.*\s-n\b/.test(command),
		background: /(^|[^&])&\s*$|\bnohup\b|\bsetsid\b/.test(command),
	};
});

/** An edit or write that changed a file (a fact's `wrote`, known before its facts are built). */
export function wroteFile(call: ToolCallRecord): boolean {
	return (call.kind === "edit" || call.kind === "write") && call.changed === true;
}

/** The facts of one call. */
export function factOf(call: ToolCallRecord): CallFact {
	const shell = call.kind === "bash" && call.command !== undefined ? commandFacts(call.command) : undefined;
	const command = shell?.command;
	const result = call.result;
	const fact: CallFact = {
		index: call.index,
		name: call.name,
		kind: call.kind,
		isError: call.isError,
		wrote: wroteFile(call),
		shellWrite: false,
		piped: false,
		background: false,
		finished: false,
		// Joined, not a template: a template keeps the slice, which keeps the whole result alive for
		// as long as the fact lives (a scan's facts held every result); join copies the characters.
		outcome: [call.name, call.isError ? "E" : "", result.length, result.slice(-120)].join("|"),
	};
	if (call.path !== undefined) fact.path = call.path;
	// Recorders put the exit code at the start ("Exit code 1") or the end ("Command exited with code 1").
	const exit = EXIT_CODE.exec(result.length > 400 ? `${result.slice(0, 120)}\n${result.slice(-280)}` : result);
	if (exit) fact.exitCode = Number(exit[1]);
	else if (call.kind === "bash" && !call.isError && result) fact.exitCode = 0;
	if (call.isError && REFUSAL.test(result)) fact.refused = clipWhy(REFUSAL.exec(result)?.[0] ?? result);
	if (shell !== undefined && command !== undefined) {
		fact.command = command;
		fact.shellWrite = shell.shellWrite;
		const check = shell.check ?? (result ? checkFromOutput(command, result) : undefined);
		if (check) fact.check = check;
		fact.piped = shell.piped;
		if (fact.check) {
			const failure =
				failureIn(result) ??
				(call.isError && fact.exitCode !== undefined && fact.exitCode !== 0 ? `exit code ${fact.exitCode}` : undefined);
			if (failure) fact.failure = failure;
			const partial = partialCheck(command, result);
			if (partial) fact.partial = partial;
		}
		const git = gitOp(shell, result, call.isError);
		if (git) fact.git = git;
		if (git && shell.bypass) fact.bypass = true;
		if (shell.background) fact.background = true;
	}
	if (startsBackground(fact.command, call.args)) fact.background = true;
	// A patch tool names its files inside the patch (Codex's apply_patch), not in a path argument.
	if ((call.kind === "edit" || call.kind === "write") && call.path === undefined && !call.isError)
		fact.mentions = argsText(call.args);
	if (call.kind === "other") {
		const todos = call.args.todos;
		if (Array.isArray(todos))
			fact.ticked = todos.flatMap((t) =>
				t && typeof t === "object" && /^(completed|done)$/i.test(String((t as { status?: unknown }).status))
					? [String((t as { content?: unknown }).content ?? "").slice(0, 200)]
					: [],
			);
		else if (!call.isError && MAY_WRITE.test(call.name)) fact.mentions = argsText(call.args);
	}
	if (call.kind === "poll") fact.finished = POLL_OVER.test(result);
	return fact;
}

const POLL_OVER = new RegExp(
	String.raw`<status>(?:completed|failed|killed)<\/status>` +
		String.raw`|\b(?:exit(?:ed)?(?: with)? code|completed|finished|exited)\b`,
	"i",
);

function argsText(args: Record<string, unknown>): string {
	try {
		return JSON.stringify(args).slice(0, 600);
	} catch {
		return "";
	}
}
