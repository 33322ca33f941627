// How findings look in the TUI: collapsed, the title and one line of evidence; expanded,
// the evidence, recommended action, importance, category and source.
import type { Theme } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { type Finding, firstLine, type Question, sourceLabel, title } from "../findings/index.ts";

export function renderFindings(findings: Finding[], label: string, expanded: boolean, theme: Theme): Text {
	const lines: string[] = [];
	for (const f of findings) {
		const color = f.severity === "blocker" ? "error" : f.importance === "high" ? "warning" : "muted";
		lines.push(`${theme.fg(color, "●")} ${theme.bold(`Watchdog ${title(f)}`)} ${theme.fg("dim", `(${label})`)}`);
		if (!expanded) {
			lines.push(theme.fg("muted", `  Evidence: ${firstLine(f.evidence, 140)}`));
			continue;
		}
		lines.push(`  Evidence: ${indent(f.evidence)}`, `  Recommended action: ${indent(f.recommendedAction)}`);
		lines.push(
			theme.fg(
				"muted",
				`  Importance: ${cap(f.importance)} · Severity: ${cap(f.severity)}` +
					`${f.category ? ` · Category: ${cap(f.category.replace(/-/g, " "))}` : ""} ` +
					`· Source: ${sourceLabel(f)}`,
			),
		);
	}
	return new Text(lines.join("\n"), 1, 0);
}

/** The reviewer's question: collapsed, the question's first line; expanded, the question and what made it ask. */
export function renderQuestion(q: Question, label: string, expanded: boolean, theme: Theme): Text {
	const lines = [`${theme.fg("accent", "?")} ${theme.bold("Watchdog question")} ${theme.fg("dim", `(${label})`)}`];
	if (!expanded) lines.push(theme.fg("muted", `  ${firstLine(q.question, 140)}`));
	else lines.push(`  Question: ${indent(q.question)}`, `  Evidence: ${indent(q.evidence)}`);
	return new Text(lines.join("\n"), 1, 0);
}

/** Continuation lines of a multi-line text line up under its first line. */
function indent(text: string): string {
	return text.replace(/\n/g, "\n    ");
}

function cap(word: string): string {
	return word.replace(/\b\w/g, (c) => c.toUpperCase());
}
