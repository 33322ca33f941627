// One stopped child against its own evidence, with no model call: its status, the blockers
// its watchdog left open, where its changes went, and the claims of its final answer checked
// by the claims checker against its session file's tool log. What the checker cannot decide
// (work reported done with files changed but nothing run after the last edit) is left for the
// model review. Pure: the caller reads the session file into events.
import { type CallFact, checkClaims, type ClaimSignal, EvidenceLog, extractClaims } from "../evidence/index.ts";
import type { SessionEvent } from "../transcript/index.ts";
import { clip, oneLine } from "../util/index.ts";
import { childId, type StoppedChild } from "./stop-state.ts";

export type Verdict = "genuine" | "unproven" | "contradicted" | "unfinished" | "needs-user" | "stopped" | "unverified";

export interface ChildCheck {
	id: string;
	runId: string;
	label: string;
	agent: string;
	task: string;
	status: string;
	background: boolean;
	/** Where it worked (a worktree is gone once its changes landed). */
	cwd: string;
	sessionFile?: string;
	/** Undefined: the checker could not decide (the model review does). */
	verdict?: Verdict;
	/** What was checked, a few words, for the user's note. */
	checked: string;
	/** The claim at stake, quoted short. */
	claim?: string;
	/** What the evidence shows, with the tool-call indices. */
	evidence?: string;
	/** What the child must do to make it good (a re-run's instruction). */
	instruction?: string;
	/** Who must act when it needs a person. */
	who?: string;
	/** For the model review: the tool log, one line per call, and the files written. */
	toolLog: string[];
	written: string[];
	/** What its diff did in the parent's tree, when it worked in a worktree. */
	landed?: string;
	answer: string;
}

export interface ChildLog {
	facts: CallFact[];
	/** The claims checker's signals on the final stop. */
	signals: ClaimSignal[];
}

/** The tool log of a session file's events, and the claims of its final stop checked against it. */
export function logOf(events: Iterable<SessionEvent>): ChildLog {
	const log = new EvidenceLog();
	for (const event of events) log.add(event);
	return { facts: log.facts, signals: checkClaims(log.facts, log.current()) };
}

const NEEDS_PERSON = new RegExp(
	String.raw`api key|credential|\bauth|unauthori[sz]ed|forbidden|quota|usage limit` +
		String.raw`|billing|not available to a background run|not known to Pi`,
	"i",
);
const MAX_LOG_LINES = 80;

export function calls(from: number, to: number): string {
	if (to < 0) return "no tool calls";
	return from === to ? `tool call ${from}` : `tool calls ${from}–${to}`;
}

function where(child: StoppedChild, range: string): string {
	return child.sessionFile ? `${range} in ${child.sessionFile}` : `${range} (no session file)`;
}

function callLine(f: CallFact): string {
	const what = f.command !== undefined ? `\`${clip(oneLine(f.command), 120)}\`` : (f.path ?? "");
	const outcome = f.refused ? `refused (${f.refused})` : f.isError ? "error" : "ok";
	return (
		`#${f.index} ${f.name} ${what} → ${outcome}` +
		`${f.exitCode !== undefined ? `, exit ${f.exitCode}` : ""}` +
		`${f.failure ? `, "${f.failure}"` : ""}` +
		`${f.wrote ? ", changed the file" : ""}`
	);
}

/** The check a claim's words name: its command in backticks, else the kind of check. */
function checkNamed(answer: string, quote: string): string {
	const claim = extractClaims(answer).claims.find((c) => c.quote === quote);
	if (claim?.command) return `\`${claim.command}\``;
	return claim?.check === "typecheck"
		? "the type check"
		: claim?.check === "lint"
			? "the linter"
			: claim?.check === "build"
				? "the build"
				: "the tests";
}

/** What the child must do about one checker signal. */
export function instructionFor(signal: ClaimSignal, answer: string): string {
	const check = checkNamed(answer, signal.claim);
	switch (signal.kind) {
		case "check-passed":
			if (signal.verdict === "contradicted")
				return (
					`Fix what made ${check} fail (${calls(signal.from, signal.to)} of your session), ` +
					`run ${check} again after the last edit, and report the real output and exit code.`
				);
			return (
				`Run ${check} after your last edit and report the real output and exit code; ` +
				`do not report a check as passing without having run it.`
			);
		case "files-changed":
		case "checklist":
			return (
				"Make the changes your report names (the log shows no successful edit of them), " +
				"then report only the files that really changed."
			);
		case "committed":
		case "pushed":
			return (
				`Run git ${signal.kind === "pushed" ? "push" : "commit"} and report its output: ` +
				`the log shows no successful one.`
			);
		case "implemented":
			return signal.evidence.startsWith("no edit")
				? "Do the work: your session changed no file. Report only what you changed and checked."
				: `Fix the failing check (${calls(signal.from, signal.to)}), run it again, and report its real result.`;
		case "done":
			return (
				`Fix the failing check (${calls(signal.from, signal.to)}), run it again after ` +
				`the last edit, and report its real result.`
			);
		case "pre-existing":
			return (
				"Show that these failures were there before your change (run the check on the " +
				"original state), or fix them."
			);
		default:
			return `Back "${clip(signal.claim, 80)}" with a real run, or report plainly that it is not verified.`;
	}
}

/** Checks one child; `log` is its session's tool log, or why there is none. */
export function judgeChild(
	runId: string,
	background: boolean,
	child: StoppedChild & { model?: string },
	log: ChildLog | { error: string },
): ChildCheck {
	const base: ChildCheck = {
		id: childId(runId, child.label),
		runId,
		label: child.label,
		agent: child.agent,
		task: child.task,
		status: child.status,
		background,
		cwd: child.cwd,
		...(child.sessionFile ? { sessionFile: child.sessionFile } : {}),
		checked: "",
		toolLog: [],
		written: [],
		...(child.landed
			? {
					landed:
						child.landed.status === "applied"
							? `landed in the tree: ${child.landed.paths.join(", ")}`
							: child.landed.status === "unchanged"
								? "no change landed"
								: `did not land (${child.landed.reason ?? "merge conflict"})`,
				}
			: {}),
		answer: child.answer,
	};
	const facts = "error" in log ? [] : log.facts;
	base.toolLog = facts.slice(-MAX_LOG_LINES).map(callLine);
	base.written = [...new Set(facts.filter((f) => f.wrote && f.path).map((f) => f.path as string))];
	const last = Math.max(0, facts.length - 1);
	const error = child.error ? oneLine(clip(child.error, 300)) : "";
	if (child.status === "stopped")
		return { ...base, verdict: "stopped", checked: "stopped before it finished (by you or the parent)" };
	if (child.status !== "done") {
		const person = NEEDS_PERSON.test(error);
		return {
			...base,
			verdict: person ? "needs-user" : "unfinished",
			checked: `status ${child.status}`,
			evidence: `It ended ${child.status}${error ? `: ${error}` : ""} (${where(child, calls(0, facts.length - 1))}).`,
			...(person
				? {
						who:
							`the user: ${error || "the child's model could not run"} (credentials, or another ` +
							`model for this agent${child.model ? ` instead of ${child.model}` : ""})`,
					}
				: {
						instruction:
							child.status === "timed out"
								? "Finish the task within the deadline: take a smaller step, or run it with a larger timeoutMs."
								: "Finish the task, then report what changed and what you ran.",
					}),
		};
	}
	const asks = child.pendingAsks ?? [];
	if (asks.length)
		return {
			...base,
			verdict: "needs-user",
			checked: "a denied call waits for the user",
			claim: clip(child.answer.trim(), 120),
			evidence: `The permission arbiter denied ${asks.join("; ")}, and the user may allow it once.`,
			who: `the user: allow the call (/subagents-watchdog allow ${asks.map((a) => a.split(" ")[0]).join(", ")}) or not`,
		};
	const open = child.blockers.blockers;
	if (open.length) {
		const first = oneLine(clip(open[0]?.summary ?? "", 200));
		return {
			...base,
			verdict: "unfinished",
			checked: "a blocker left open",
			claim: clip(child.answer.trim(), 120),
			evidence:
				`Its watchdog left ${open.length} blocker(s) open${child.blockers.stalemate ? " (stalemate)" : ""}: ` +
				`"${first}" (${where(child, calls(0, facts.length - 1))}).`,
			instruction: `Address the open blocker: ${first}.`,
		};
	}
	if (child.landed?.status === "conflict") {
		const l = child.landed;
		const why = l.reason
			? `It did not land: ${l.reason}.`
			: `Merge conflict in ${(l.conflicts ?? []).join(", ")}; nothing of it is in the tree.`;
		// Only a place that holds the change is named: the kept patch, else the worktree kept with it.
		const kept = l.patchPath
			? ` Its patch is at ${l.patchPath}.`
			: l.worktreeDir
				? ` Its files are still in its worktree at ${l.worktreeDir}.`
				: "";
		const take = l.patchPath
			? `Apply the kept patch ${l.patchPath} by hand`
			: l.worktreeDir
				? `Take its change from ${l.worktreeDir} by hand`
				: "Redo its change";
		return {
			...base,
			verdict: "unfinished",
			checked: "its changes did not land",
			evidence: `${why}${kept}`,
			instruction: `${take}, or re-run the task on the current tree.`,
		};
	}
	if ("error" in log)
		return {
			...base,
			checked: `its session file could not be read (${log.error})`,
			evidence: `Its session file could not be read: ${log.error}.`,
		};
	if (!child.answer.trim())
		return {
			...base,
			verdict: "unfinished",
			checked: "an empty final answer",
			evidence: `It ended with an empty final message (${where(child, `after tool call ${last}`)}).`,
			instruction: "Report what you did: the files changed and the checks you ran, with their results.",
		};
	const worst = log.signals.find((s) => s.verdict === "contradicted") ?? log.signals[0];
	if (worst) {
		const more =
			log.signals.length > 1
				? ` (${log.signals.length - 1} more claim(s) not borne out: ${log.signals
						.filter((s) => s !== worst)
						.map((s) => `"${clip(s.claim, 60)}"`)
						.join(", ")})`
				: "";
		return {
			...base,
			verdict: worst.verdict === "contradicted" ? "contradicted" : "unproven",
			checked: `${log.signals.length} claim(s) against its tool log`,
			claim: worst.claim,
			evidence: `${sentence(worst.evidence)} (${where(child, calls(worst.from, worst.to))})${more}.`,
			instruction: instructionFor(worst, child.answer),
		};
	}
	const lastEdit = facts.reduce((at, f) => (f.wrote || (f.shellWrite && !f.check && !f.isError) ? f.index : at), -1);
	if (lastEdit < 0)
		return {
			...base,
			verdict: "genuine",
			checked: `changed nothing; ${extractClaims(child.answer).claims.length} claim(s) checked`,
		};
	const passed = facts.find((f) => f.index > lastEdit && f.check && !f.failure && !f.isError && !f.refused);
	if (passed)
		return {
			...base,
			verdict: "genuine",
			checked:
				`${passed.check} \`${clip(passed.command ?? "", 60)}\` passed after ` +
				`the last ` +
				`edit (call ${passed.index})`,
		};
	// Files changed and nothing checked them: whether the work is what it says is the model's call.
	return {
		...base,
		checked: `changed ${base.written.length || "some"} file(s), nothing run after the last edit (call ${lastEdit})`,
	};
}

/** Starts a sentence with a capital, unless it starts with a file name or a path (notes.md stays notes.md). */
function sentence(text: string): string {
	return /^[a-z]+(?![\w./-])/.test(text) ? `${text[0]?.toUpperCase()}${text.slice(1)}` : text;
}
