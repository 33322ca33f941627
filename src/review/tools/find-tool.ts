// `find`: files whose path matches a glob, relative to the repository root.
import { stat } from "node:fs/promises";
import { Type } from "typebox";
import { parseArgs } from "./args.ts";
import { confinePath } from "./confine.ts";
import { compileGlob } from "./glob.ts";
import { fitLines } from "./output.ts";
import { fail, ok, type ReviewerTool } from "./types.ts";
import { compareNames, walkFiles } from "./walk.ts";

const FIND_MAX_RESULTS = 500;
/** Files looked at before giving up, so a huge tree cannot keep the reviewer waiting. */
export const WALK_MAX_FILES = 100_000;

const FIND_PARAMS = Type.Object({
	pattern: Type.String({ minLength: 1, description: 'Glob, e.g. "*.md" or "src/**/*.ts".' }),
	path: Type.Optional(
		Type.String({ description: "Folder to search, relative to the repository root. Default: the root." }),
	),
});

export function createFindTool(root: string, maxOutputChars: number): ReviewerTool {
	return {
		name: "find",
		description: [
			"Find files by glob: * (within a folder), ** (any folders), ?, [abc], {a,b}. " +
				"A pattern without / matches file names at any depth",
			'("*.ts"); one with / matches the path below "path" ("src/**/*.test.ts"). Skips .git and node_modules.',
		].join(" "),
		parameters: FIND_PARAMS,
		async execute(args, signal) {
			const parsed = parseArgs("find", args, FIND_PARAMS);
			if (!parsed.ok) return fail(parsed.error);
			const glob = compileGlob(parsed.values.pattern);
			if (!glob.ok) return fail(`find: ${glob.error}.`);
			const place = confinePath(root, parsed.values.path ?? "");
			if (!place.ok) return fail(`find: ${place.error}.`);
			const name = place.rel === "" ? "the repository root" : place.rel;
			try {
				if (!(await stat(place.abs)).isDirectory()) return fail(`find: ${name} is a file; "path" must be a folder.`);
			} catch {
				return fail(`find: ${name} does not exist; use ls to see which folders there are.`);
			}

			const found: string[] = [];
			let seen = 0;
			let more = false;
			let walkCut = false;
			const prefix = place.rel === "" ? 0 : place.rel.length + 1;
			for await (const file of walkFiles({ abs: place.abs, rel: place.rel }, place.realRoot, signal)) {
				if (++seen > WALK_MAX_FILES) {
					walkCut = true;
					break;
				}
				if (!glob.matches(file.rel.slice(prefix))) continue;
				if (found.length === FIND_MAX_RESULTS) {
					more = true;
					break;
				}
				found.push(file.rel);
			}
			if (signal.aborted) return fail("find: cancelled before it finished.");
			const walkNote = walkCut ? `[stopped after looking at ${WALK_MAX_FILES} files; give a narrower path]` : "";
			if (found.length === 0)
				return ok(
					`No files match ${JSON.stringify(parsed.values.pattern)} under ${name}.${walkNote ? `\n${walkNote}` : ""}`,
				);
			found.sort(compareNames);
			const fitted = fitLines(found, maxOutputChars - 300);
			const notes: string[] = [];
			if (more || fitted.shown < found.length)
				notes.push(`[truncated: showed ${fitted.shown} paths and there are more; use a narrower pattern or path]`);
			if (walkNote) notes.push(walkNote);
			return ok([fitted.text, ...notes].join("\n"));
		},
	};
}
