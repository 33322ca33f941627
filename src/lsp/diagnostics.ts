// Diagnostics from the language server, and what becomes of them: errors are blocker
// findings of high importance, warnings concerns of medium importance, information and hints
// stay in status. Only what is new since the last report is raised. Pure.
import { type Finding, makeFinding } from "../findings/index.ts";

export type DiagnosticSeverity = "error" | "warning" | "info" | "hint";

export interface Diagnostic {
	/** Relative to the repository root, with forward slashes. */
	path: string;
	line: number;
	column: number;
	code?: number | string;
	message: string;
	severity: DiagnosticSeverity;
}

/** tsserver's diagnostic shape (as returned by its *DiagnosticsSync commands). */
export interface TsServerDiagnostic {
	start?: { line: number; offset: number };
	text?: string;
	message?: string;
	code?: number;
	category?: string;
}

export function fromTsServer(path: string, raw: TsServerDiagnostic): Diagnostic {
	const category = raw.category ?? "error";
	const severity: DiagnosticSeverity =
		category === "error" ? "error" : category === "warning" ? "warning" : category === "suggestion" ? "hint" : "info";
	return {
		path,
		line: raw.start?.line ?? 1,
		column: raw.start?.offset ?? 1,
		...(raw.code !== undefined ? { code: raw.code } : {}),
		message: (raw.text ?? raw.message ?? "").trim(),
		severity,
	};
}

export function where(d: Diagnostic): string {
	return `${d.path}:${d.line}:${d.column}`;
}

/** Identity across edits: the file, the code and the message, not the position (lines move). */
export function diagnosticKey(d: Diagnostic): string {
	return `${d.path}\u0000${d.code ?? ""}\u0000${d.message}`;
}

/** What was last reported per file (keys of errors and warnings). */
export type Reported = Map<string, Set<string>>;

/**
 * Errors and warnings in the checked files that were not in the last report. Every checked
 * file's entry is replaced by what it has now, so a file that comes back clean clears and a
 * diagnostic that returns later is raised again.
 */
export function newSinceLastReport(
	reported: Reported,
	checkedPaths: string[],
	current: Diagnostic[],
): { fresh: Diagnostic[]; reported: Reported } {
	const next: Reported = new Map(reported);
	const fresh: Diagnostic[] = [];
	for (const path of checkedPaths) {
		const before = reported.get(path) ?? new Set<string>();
		const now = new Set<string>();
		for (const d of current) {
			if (d.path !== path || (d.severity !== "error" && d.severity !== "warning")) continue;
			const key = diagnosticKey(d);
			if (!before.has(key) && !now.has(key)) fresh.push(d);
			now.add(key);
		}
		if (now.size) next.set(path, now);
		else next.delete(path);
	}
	return { fresh, reported: next };
}

/** One finding per new error or warning; no model call is involved. */
export function diagnosticFindings(fresh: Diagnostic[], at = Date.now()): Finding[] {
	return fresh.map((d) => {
		const error = d.severity === "error";
		const code = d.code !== undefined ? ` (TS${d.code})` : "";
		return makeFinding(
			{
				summary: `${error ? "Type error" : "Warning"} at ${where(d)}: ${firstSentence(d.message)}`,
				evidence: `typescript-language-server reports at ${where(d)}${code}: ${d.message}`,
				recommendedAction: error
					? `Fix the error at ${where(d)} so the code type-checks again.`
					: `Look at the warning at ${where(d)} and fix it or say why it is fine.`,
				importance: error ? "high" : "medium",
				severity: error ? "blocker" : "concern",
				category: "correctness",
			},
			"lsp",
			at,
		);
	});
}

/** The current diagnostics as a signal for the reviewer model. */
export function diagnosticsSignal(current: Diagnostic[], checked: number): string {
	const shown = current.filter((d) => d.severity === "error" || d.severity === "warning");
	if (!shown.length)
		return `LSP (typescript-language-server): ${checked} changed or importing file(s) checked, no errors or warnings.`;
	const lines = shown
		.slice(0, 40)
		.map(
			(d) => `${d.severity} ${where(d)}${d.code !== undefined ? ` TS${d.code}` : ""}: ${firstSentence(d.message, 200)}`,
		);
	return (
		`LSP (typescript-language-server), ${checked} file(s) checked:\n` +
		`${lines.join("\n")}` +
		`${shown.length > 40 ? `\n… ${shown.length - 40} more` : ""}`
	);
}

function firstSentence(text: string, max = 160): string {
	const line = text.split("\n")[0];
	return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
