// What a launch returns to the parent: each child's final answer, status, counts, session
// file, where its changes went, and whether it is accepted: acceptance fails
// (`watchdog-blocker`) while a blocker the child's watchdog raised is still open or
// stalemated. The child's findings are not in this text: they go through the parent's
// findings sink (forParent), like every finding. Pure.
import { type ChildBlockers, dedupe, type Finding } from "../findings/index.ts";
import { clip, oneLine } from "../util/index.ts";
import type { ChildOutcome } from "./child-session.ts";

export interface Landing {
	/** conflict: the change did not land (or not whole); it is in the patch, or still in the worktree. */
	status: "applied" | "conflict" | "unchanged";
	paths: string[];
	conflicts?: string[];
	/** Why it did not land, when it is not a plain merge conflict. */
	reason?: string;
	patchPath?: string;
	/** The child's worktree, kept when its change could be neither landed nor saved as a patch. */
	worktreeDir?: string;
}

export interface ChildResult extends ChildOutcome {
	/** "worker" for one child, "worker#2" for the second of several. */
	label: string;
	agent: string;
	task: string;
	model: string;
	/** Where it worked: the parent's folder, or a worktree (then `landed` says what came back). */
	cwd: string;
	worktree?: boolean;
	landed?: Landing;
	/** Every finding the child's watchdog showed or sent. */
	findings: Finding[];
	blockers: ChildBlockers;
	note?: string;
	/** The runs the child launched itself, each with its children's results (and theirs below). */
	below?: BelowRun[];
	/** Its calls the arbiter denied that the user may still allow ("id tool"). */
	pendingAsks?: string[];
}

/** One launch a child made, as its parent keeps it. */
export interface BelowRun {
	runId: string;
	results: ChildResult[];
}

export interface Acceptance {
	accepted: boolean;
	failedChecks: string[];
}

const ANSWER_CHARS = 4_000;

export function acceptance(r: ChildResult): Acceptance {
	const failed: string[] = [];
	const open = r.blockers.blockers;
	if (open.length)
		failed.push(
			`watchdog-blocker: ` +
				`${open.map((f) => oneLine(clip(f.summary, 160))).join("; ")}` +
				`${r.blockers.stalemate ? " (stalemate)" : ""}`,
		);
	if (r.status !== "done") failed.push(`status: ${r.status}`);
	if (r.landed?.status === "conflict")
		failed.push(
			r.landed.reason ? `not landed: ${r.landed.reason}` : `merge conflict: ${(r.landed.conflicts ?? []).join(", ")}`,
		);
	return { accepted: failed.length === 0, failedChecks: failed };
}

/**
 * What of a child's findings goes to the parent's sink, each tagged with the child: every one
 * its watchdog showed or sent, once, nudges aside (a nudge is the child's watchdog moving the
 * child on, and it went to the child itself; status and history keep it).
 */
export function forParent(r: ChildResult): Finding[] {
	// The latest of a finding raised again is kept: it is what the child's last review said.
	const latestFirst = dedupe(r.findings.filter((f) => f.source !== "idle").reverse());
	// One that rose from further down keeps its path: "lead > tester".
	return latestFirst.reverse().map((f) => ({ ...f, child: f.child ? `${r.label} > ${f.child}` : r.label }));
}

/** A launch's findings for the parent's sink, all children together. */
export function launchFindings(results: ChildResult[]): Finding[] {
	return results.flatMap(forParent);
}

/** One child's part of the tool result, as the parent's model reads it. */
export function childText(r: ChildResult): string {
	const a = acceptance(r);
	const head = `## ${r.label} (${r.agent}, ${r.model}): ${r.status}${a.accepted ? "" : ", not accepted"}`;
	const lines = [
		head,
		`${r.toolCalls} tool calls · ${r.tokens.toLocaleString("en-US")} ` +
			`tokens · $${r.cost.toFixed(4)}` +
			`${r.sessionFile ? ` · session ${r.sessionFile}` : ""}`,
	];
	if (r.error) lines.push(`Error: ${oneLine(clip(r.error, 500))}`);
	if (r.note) lines.push(r.note);
	if (r.landed) lines.push(landingLine(r.landed));
	if (!a.accepted) lines.push(`Failed checks: ${a.failedChecks.join(" | ")}`);
	lines.push("Final answer:", r.answer.trim() ? clip(r.answer.trim(), ANSWER_CHARS) : "(empty)");
	return lines.join("\n");
}

export function landingLine(l: Landing): string {
	if (l.status === "unchanged") return "Changes: none.";
	if (l.status === "applied") return `Changes landed in your tree: ${l.paths.join(", ")}.`;
	const kept = l.patchPath
		? `the child's patch is at ${l.patchPath}`
		: l.worktreeDir
			? `the child's files are still in its worktree at ${l.worktreeDir}`
			: "nothing of it was kept";
	if (l.reason) return `Not landed: ${l.reason}; ${kept}.`;
	return `Merge conflict in ${(l.conflicts ?? []).join(", ")}: your files were left as they were; ${kept}.`;
}

export function launchText(results: ChildResult[], notes: string[] = []): string {
	const done = results.filter((r) => r.status === "done").length;
	const accepted = results.filter((r) => acceptance(r).accepted).length;
	const head = results.length === 1 ? "" : `${results.length} children: ${done} done, ${accepted} accepted.\n\n`;
	return `${head}${[...notes, ...results.map(childText)].join("\n\n")}`;
}

/** The structured result (the tool's `details`), without the answers' full text. */
export function launchDetails(results: ChildResult[]) {
	return results.map((r) => {
		const a = acceptance(r);
		return {
			label: r.label,
			agent: r.agent,
			model: r.model,
			status: r.status,
			accepted: a.accepted,
			failedChecks: a.failedChecks,
			toolCalls: r.toolCalls,
			tokens: r.tokens,
			cost: r.cost,
			sessionFile: r.sessionFile,
			...(r.landed ? { landed: r.landed } : {}),
			findings: forParent(r).map((f) => ({ summary: f.summary, severity: f.severity, importance: f.importance })),
		};
	});
}
