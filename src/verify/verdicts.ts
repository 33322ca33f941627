// A verification's outcome from the children's checks: one high-importance finding per child
// whose stop does not hold (the sink packs them into one message to the parent's model), each
// naming the child, the claim, the evidence and the next action; and the one-line note for the
// user of what was checked. Pure.
import { type Finding, makeFinding } from "../findings/index.ts";
import { clip, oneLine } from "../util/index.ts";
import type { ChildCheck, Verdict } from "./child-check.ts";

export const VERIFY_SOURCE = "verify";

/** Verdicts that go to the parent's model; the others are for the user only. */
const TO_MODEL: ReadonlySet<Verdict> = new Set(["unproven", "contradicted", "unfinished", "needs-user"]);

const WORDS: Record<Verdict, string> = {
	genuine: "genuine",
	unproven: "claim not backed by its own log",
	contradicted: "claim contradicted by its own log",
	unfinished: "not finished",
	"needs-user": "blocked on something only a person can give",
	stopped: "stopped",
	unverified: "not verified",
};

export interface Verification {
	findings: Finding[];
	note: string;
	/** "worker unproven, scout genuine". */
	verdicts: string;
	outcome: "genuine" | "problems" | "unverified";
}

/** The `subagent` call that re-runs a child with the instruction added to its task. */
export function rerunCall(check: ChildCheck): string {
	const task =
		`${clip(oneLine(check.task), 300)}\n\n` +
		`${check.instruction ?? "Finish the task and report what you really ran."}`;
	return `subagent(${JSON.stringify({ agent: check.agent, task, ...(check.background ? { async: true } : {}) })})`;
}

export function nextAction(check: ChildCheck): string {
	if (check.verdict === "needs-user")
		return `Ask ${check.who ?? "the user"}; do not re-run ${check.label} until that is settled.`;
	const path = check.label.split(" > ");
	if (path.length > 1) {
		// A leaf further down: the child that launched it has ended too, so the call is this session's.
		const above = path.slice(0, -1).join(" > ");
		const why = `${above} has ended, so it cannot re-run it; launch the ${check.agent} agent yourself`;
		return `Re-run ${check.label} from here with this instruction (${why}): ${rerunCall(check)}`;
	}
	const why = check.background
		? "its background run has ended, so steer no longer reaches it and a finished child cannot be resumed"
		: "a finished foreground child cannot be resumed";
	return `Re-run ${check.label} with this instruction (${why}): ${rerunCall(check)}`;
}

export function childFinding(check: ChildCheck): Finding {
	const verdict = check.verdict ?? "unverified";
	const claim = check.claim ? `"${clip(oneLine(check.claim), 70)}"` : "its stop";
	return makeFinding(
		{
			summary: `${check.label} (run ${check.runId}): ${WORDS[verdict]}: ${claim}`,
			// The evidence first: a collapsed finding shows only its first line.
			evidence: [
				`Evidence: ${check.evidence ?? "none recorded"}`,
				...(check.claim ? [`Claim: "${clip(oneLine(check.claim), 200)}"`] : []),
				`Child ${check.label} (agent ${check.agent}, ${check.background ? "background" : "foreground"} ` +
					`run ${check.runId}) ended ${check.status}.`,
				...(check.written.length
					? [`Files it changed: ${check.written.slice(0, 8).join(", ")}${check.written.length > 8 ? ", …" : ""}.`]
					: []),
				...(check.landed ? [`Its diff (from its worktree): ${clip(check.landed, 300)}.`] : []),
			].join("\n"),
			recommendedAction: nextAction(check),
			importance: "high",
			severity: verdict === "unproven" || verdict === "needs-user" ? "concern" : "blocker",
			category: /test|check|build|lint|type/i.test(check.claim ?? "") ? "test-gap" : "correctness",
		},
		VERIFY_SOURCE,
	);
}

/**
 * The outcome of one verification. `earlier`: children whose unchanged stop an earlier
 * verification already judged (not reported again).
 */
export function assemble(
	checks: ChildCheck[],
	earlier: Array<{ label: string; verdict: string }>,
	fingerprint: string,
): Verification {
	const findings = checks.filter((c) => c.verdict !== undefined && TO_MODEL.has(c.verdict)).map(childFinding);
	const parts = checks.map(
		(c) =>
			`${c.label} ${c.verdict ?? "unverified"} (${c.checked}` +
			`${c.verdict && TO_MODEL.has(c.verdict) ? "; told the agent" : ""})`,
	);
	// Earlier children are counted, not listed: each re-run would otherwise add another line to the note.
	if (earlier.length) parts.push(`${earlier.length} verified earlier, unchanged`);
	const n = checks.length;
	const note =
		`Watchdog verified ${n} stopped child${n === 1 ? "" : "ren"} [${fingerprint.slice(0, 12)}]: ` +
		`${parts.join("; ")}.`;
	const verdicts = [
		...checks.map((c) => `${c.label} ${c.verdict ?? "unverified"}`),
		...earlier.map((e) => `${e.label} ${e.verdict}`),
	].join(", ");
	const outcome = findings.length
		? "problems"
		: checks.some((c) => c.verdict === undefined || c.verdict === "unverified")
			? "unverified"
			: "genuine";
	return { findings, note, verdicts, outcome };
}
