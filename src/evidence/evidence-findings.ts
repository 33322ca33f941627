// Evidence signals as findings: a short headline for the summary, the detail (quoted claim,
// tool-call indices, what the log shows) in the evidence, and the way out in the action. An
// unfinished stop's finding is the nudge itself: its action restates the goal, cites what the
// agent already concluded and names the next step. Pure.
import { type Finding, makeFinding } from "../findings/index.ts";
import type { ClaimSignal } from "./claims.ts";
import type { IdleKind, IdleSignal } from "./unfinished.ts";

const HEADLINES: Record<IdleKind, string> = {
	empty: "Stopped with an empty final message",
	"hidden-result": "Stopped with the result only in hidden reasoning",
	announced: "Stopped right after announcing a next step",
	"self-question": "Stopped to ask leave for work already asked for",
	waiting: "Stopped to wait with nothing running",
	"handed-back": "Stopped to hand the user a command it could run",
	"asks-instead": "Stopped to ask what the repository could answer",
	"sign-off": "Stopped for your decision",
};

function short(text: string, max: number): string {
	const t = text.replace(/\s+/g, " ").trim();
	return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

function calls(s: { from: number; to: number }): string {
	if (s.to < 0) return "no tool calls";
	return s.from === s.to ? `tool call ${s.from}` : `tool calls ${s.from}–${s.to}`;
}

export function claimFinding(signal: ClaimSignal): Finding {
	const contradicted = signal.verdict === "contradicted";
	return makeFinding(
		{
			summary:
				`${contradicted ? "Claim contradicted by the log" : "Claim not backed by the log"}: ` +
				`"${short(signal.claim, 70)}"`,
			evidence:
				`Claim (${signal.kind}): "${short(signal.claim, 200)}". ` +
				`${signal.evidence[0]?.toUpperCase()}${signal.evidence.slice(1)} ` +
				`(${calls(signal)}).`,
			recommendedAction: contradicted
				? "Do not report this as done: do the work or rerun the check after the last edit " +
					"and look at its output (not only the exit code of a pipe), then report what " +
					"it really shows."
				: "Back the claim with a run after the last edit (or say plainly that it was not verified).",
			importance: contradicted ? "high" : "medium",
			severity: contradicted ? "blocker" : "concern",
			// The reviewer's category for the same problem, so the two are one finding when both see it.
			category: "unbacked-claim",
		},
		"claims",
	);
}

/** The text a nudge carries: the goal, what the agent concluded, the next step. */
export function nudgeText(signal: IdleSignal, goal: string, concluded: string): string {
	const lines = [];
	if (goal.trim()) lines.push(`The task: ${short(goal, 300)}`);
	if (concluded.trim()) lines.push(`Where you stopped: "${short(concluded, 240)}"`);
	lines.push(`Next step: ${signal.nextStep}`);
	return lines.join("\n");
}

/**
 * An unfinished stop or a sign-off. `deliver`: whether it may go to the agent as a nudge (then
 * high importance); otherwise `why` says why not, and it is shown to the user only.
 */
export function idleFinding(
	signal: IdleSignal,
	goal: string,
	concluded: string,
	deliver: boolean,
	why?: string,
	action?: string,
): Finding {
	const evidence =
		`${signal.evidence[0]?.toUpperCase()}${signal.evidence.slice(1)} ` +
		`(after ${signal.at < 0 ? "no tool call" : `tool call ${signal.at}`})` +
		`${why ? `; not nudged: ${why}` : ""}.`;
	return makeFinding(
		{
			summary: HEADLINES[signal.kind],
			evidence,
			recommendedAction: signal.unfinished
				? (action ?? nudgeText(signal, goal, concluded))
				: "It needs you: answer the agent's question or give it leave to go on.",
			importance: deliver && signal.unfinished ? "high" : "medium",
			severity: "concern",
			category: "other",
		},
		"idle",
	);
}
