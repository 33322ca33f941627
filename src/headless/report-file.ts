// Writing the `--watchdog-report` file: the path checked at session start (so a typo is said
// before the run, not after it), the document written whole (a temp file beside it, then a
// rename), never a folder made or a link followed on the way. Errors come back as text.
import { lstatSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** Why `path` (relative to `cwd`) cannot take the report, or undefined when it can. */
export function checkReportPath(path: string, cwd: string): string | undefined {
	const target = resolve(cwd, path);
	const dir = dirname(target);
	try {
		if (!statSync(dir).isDirectory()) return `${path}: ${dir} is not a folder`;
	} catch {
		return `${path}: the folder ${dir} does not exist (the report is written only into an existing folder)`;
	}
	try {
		const st = lstatSync(target);
		if (st.isDirectory()) return `${path} is a folder; name a file, e.g. ${join(path, "watchdog.json")}`;
		if (!st.isFile()) return `${path} exists and is not a regular file`;
	} catch {
		// not there yet: it will be made
	}
	return undefined;
}

/** Writes `doc` as one JSON document at `path`, atomically; returns why it could not. */
export function writeReport(path: string, cwd: string, doc: unknown): string | undefined {
	const problem = checkReportPath(path, cwd);
	if (problem) return problem;
	const target = resolve(cwd, path);
	const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now()}.tmp`);
	try {
		writeFileSync(temp, `${JSON.stringify(doc, null, 2)}\n`, { flag: "wx", mode: 0o644 });
		renameSync(temp, target);
		return undefined;
	} catch (error) {
		rmSync(temp, { force: true });
		return `${path}: cannot write the report (${error instanceof Error ? error.message : String(error)})`;
	}
}
