// The short `/subagents-watchdog status`: what a user wants at a glance, in at most 20 lines:
// on or off and why, the reviewer and the thinking it really runs at, errors, pending changes,
// the last review, this prompt's findings with their fate (repeats folded), then one line for
// each of LSP, loops, cadence, children and rules. `status --all` and `--settings` say more. Pure.
import type { ResolvedSettings } from "../settings/index.ts";

export interface BriefFinding {
	at: number;
	severity: string;
	fate: string;
	source: string;
	summary: string;
	/** How many times the same finding came this prompt. */
	times: number;
	n: number;
}

export interface BriefInput {
	resolved: ResolvedSettings;
	onOff: string;
	/** "provider/id, thinking high (runs at medium)" or why there is none. */
	reviewer: string;
	pending: string;
	lastReview: string;
	findings: BriefFinding[];
	/** Findings of earlier prompts not shown here. */
	earlier: number;
	/** One line each: LSP, Loops, Cadence, Children and rules. */
	lines: string[];
}

export const BRIEF_MAX_LINES = 20;
const MAX_FINDINGS = 5;
const WIDTH = 110;

export function formatBrief(input: BriefInput): string {
	const out = [`Watchdog: ${input.onOff}`, `Reviewer: ${input.reviewer}`];
	const { errors } = input.resolved;
	if (errors.length)
		out.push(
			`Settings errors (${errors.length}): ` +
				`${fit(`${errors[0].origin}: ${errors[0].message}`, WIDTH - 20)}` +
				`${errors.length > 1 ? " (+ more: status --all)" : ""}`,
		);
	out.push(`Pending: ${input.pending}`, `Last review: ${input.lastReview}`);
	if (!input.findings.length)
		out.push(`Findings this prompt: none${input.earlier ? ` (${input.earlier} earlier: status --all)` : ""}`);
	else {
		out.push(`Findings this prompt${input.earlier ? ` (${input.earlier} earlier: status --all)` : ""}:`);
		for (const f of input.findings.slice(0, MAX_FINDINGS)) {
			const when = new Date(f.at).toISOString().slice(11, 16);
			out.push(
				fit(
					`  ${f.n}. ${when} ${f.severity} (${f.fate}) [${f.source}]${f.times > 1 ? ` ×${f.times}` : ""} ${f.summary}`,
					WIDTH,
				),
			);
		}
		if (input.findings.length > MAX_FINDINGS)
			out.push(`  … ${input.findings.length - MAX_FINDINGS} more (status --all)`);
	}
	out.push(...input.lines.map((l) => fit(l, WIDTH)));
	out.push("More: status --all (your settings, details) · status --settings (every setting) · history");
	return out.slice(0, BRIEF_MAX_LINES).join("\n");
}

function fit(text: string, width: number): string {
	return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}
