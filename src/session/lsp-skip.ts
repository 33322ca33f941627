// A type check that should have run and did not (the server timed out, failed or is missing) is
// never reported as clean: it becomes a finding for the user, a signal for the reviewer and the
// footer's word. Pure but for the existence check of the changed files.
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { type Finding, makeFinding } from "../findings/index.ts";
import { languageOf } from "../lsp/index.ts";

/** The changed files the pre-pass would check (TypeScript/JavaScript that still exist, outside node_modules). */
export function typedFiles(root: string, paths: string[]): string[] {
	return paths.filter(
		(p) => languageOf(p) && !/(^|\/)node_modules\//.test(p) && existsSync(isAbsolute(p) ? p : join(root, p)),
	);
}

/** Why the check was skipped, from the server's last result; undefined when it ran or had nothing to do. */
export function skipReason(
	typed: string[],
	checked: string[] | undefined,
	lastResult: string | undefined,
): string | undefined {
	if (!typed.length || checked?.length) return undefined;
	const why = (lastResult ?? "the language server gave no answer").replace(/; it will be restarted.*$/, "");
	return why.replace(/^(error|failed|unavailable): /, "");
}

export function skipFinding(why: string, typed: string[]): Finding {
	const files = typed.slice(0, 5).join(", ") + (typed.length > 5 ? ", …" : "");
	return makeFinding(
		{
			summary: `Type check skipped: ${why}`,
			evidence: `Not type-checked this run: ${files}`,
			recommendedAction:
				"Run the project's type check yourself; the next review tries the language server again " +
				"(status --all says its state).",
			importance: "low",
			severity: "concern",
		},
		"lsp",
	);
}
