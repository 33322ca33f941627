// `grep`: a JavaScript regular expression searched line by line over the repository's text
// files. No ripgrep here: the walk is ours (confined, abortable) and the matching runs in a
// worker (see line-matcher.ts).
import { stat } from "node:fs/promises";
import { Type } from "typebox";
import { parseArgs } from "./args.ts";
import { confinePath, OUTSIDE_LINK } from "./confine.ts";
import { WALK_MAX_FILES } from "./find-tool.ts";
import { compileGlob } from "./glob.ts";
import { createLineMatcher } from "./line-matcher.ts";
import { fitLines, plural } from "./output.ts";
import { formatBytes, readTextFile, type TextRead } from "./text-file.ts";
import { fail, ok, type ReviewerTool } from "./types.ts";
import { walkFiles, type WalkedFile } from "./walk.ts";

const GREP_MAX_MATCHES = 200;
const GREP_LINE_CHARS = 300;
const GREP_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** A file named explicitly may be larger than the ones a folder search looks at. */
const GREP_MAX_NAMED_FILE_BYTES = 10 * 1024 * 1024;

const GREP_PARAMS = Type.Object({
	pattern: Type.String({
		minLength: 1,
		description:
			'JavaScript regular expression, e.g. "TODO|FIXME" or "function\\\\s+load". Escape ' +
			"( [ . * + ? to match them literally.",
	}),
	path: Type.Optional(
		Type.String({ description: "File or folder to search, relative to the repository root. Default: the root." }),
	),
	glob: Type.Optional(
		Type.String({ minLength: 1, description: 'Only search files matching this glob, e.g. "*.ts" or "src/**/*.js".' }),
	),
	ignoreCase: Type.Optional(Type.Boolean({ description: "Match letters case-insensitively. Default false." })),
});

export function createGrepTool(root: string, maxOutputChars: number, regexTimeoutMs: number): ReviewerTool {
	return {
		name: "grep",
		description: [
			"Search text files line by line with a JavaScript regular expression; prints path:line: text.",
			'"path" is a file or folder (default: the root), "glob" filters file names as in find ("*.ts").',
			`Skips .git, node_modules, binary files and files over ${formatBytes(GREP_MAX_FILE_BYTES)}.`,
		].join(" "),
		parameters: GREP_PARAMS,
		async execute(args, signal) {
			const parsed = parseArgs("grep", args, GREP_PARAMS);
			if (!parsed.ok) return fail(parsed.error);
			const pattern = parsed.values.pattern;
			let regex: RegExp;
			try {
				regex = new RegExp(pattern, parsed.values.ignoreCase ? "i" : "");
			} catch (error) {
				return fail(
					`grep: ${JSON.stringify(pattern)} is not a valid JavaScript regular expression ` +
						`(${(error as Error).message}); escape characters such as ( [ { . * + ? with ` +
						`a backslash to match them literally.`,
				);
			}
			const glob = parsed.values.glob === undefined ? null : compileGlob(parsed.values.glob);
			if (glob && !glob.ok) return fail(`grep: ${glob.error}.`);
			const place = confinePath(root, parsed.values.path ?? "");
			if (!place.ok) return fail(`grep: ${place.error}.`);
			const name = place.rel === "" ? "the repository root" : place.rel;

			let isFolder: boolean;
			try {
				isFolder = (await stat(place.abs)).isDirectory();
			} catch {
				return fail(`grep: ${name} does not exist; use ls or find to see what is there.`);
			}
			const start: WalkedFile = { abs: place.abs, rel: place.rel };
			const files = isFolder ? walkFiles(start, place.realRoot, signal) : oneFile(start);
			const prefix = isFolder && place.rel !== "" ? place.rel.length + 1 : 0;

			const hits: string[] = [];
			const tooLarge: string[] = [];
			let searched = 0;
			let seen = 0;
			let walkCut = false;
			const matcher = createLineMatcher(regex, { timeoutMs: regexTimeoutMs, width: GREP_LINE_CHARS });
			const stop = () => void matcher.close();
			signal.addEventListener("abort", stop, { once: true });
			try {
				for await (const file of files) {
					if (++seen > WALK_MAX_FILES) {
						walkCut = true;
						break;
					}
					if (isFolder && glob?.ok && !glob.matches(file.rel.slice(prefix))) continue;
					const read = await readTextFile(
						place.realRoot,
						file.abs,
						isFolder ? GREP_MAX_FILE_BYTES : GREP_MAX_NAMED_FILE_BYTES,
					);
					if (!read.ok) {
						if (!isFolder) return fail(`grep: ${name} cannot be searched: ${whyNotSearched(read)}.`);
						if (read.reason === "too-large") tooLarge.push(file.rel);
						continue;
					}
					searched++;
					const result = await matcher.match(read.text, GREP_MAX_MATCHES + 1 - hits.length);
					if (signal.aborted) break;
					if (!result.ok) {
						if (result.timedOut)
							return fail(
								`grep: ${result.error} (${file.rel}); the pattern probably backtracks heavily ` +
									`(nested quantifiers such as (a+)+); simplify it or narrow "path".`,
							);
						return fail(`grep: ${result.error}.`);
					}
					for (const hit of result.hits) hits.push(`${file.rel}:${hit.line}: ${hit.text}`);
					if (hits.length > GREP_MAX_MATCHES) break;
				}
			} finally {
				signal.removeEventListener("abort", stop);
				await matcher.close();
			}
			if (signal.aborted) return fail("grep: cancelled before it finished.");

			const notes: string[] = [];
			if (walkCut) notes.push(`[stopped after looking at ${WALK_MAX_FILES} files; give a narrower path or glob]`);
			if (tooLarge.length > 0) {
				const listed =
					tooLarge.slice(0, 5).join(", ") + (tooLarge.length > 5 ? `, and ${tooLarge.length - 5} more` : "");
				notes.push(
					`[not searched, over ${formatBytes(GREP_MAX_FILE_BYTES)}: ${listed}; name one as "path" to search it]`,
				);
			}
			if (hits.length === 0) {
				return ok(
					[`No matches for /${pattern}/${regex.flags} in ${plural(searched, "file")} under ${name}.`, ...notes].join(
						"\n",
					),
				);
			}
			const kept = hits.slice(0, GREP_MAX_MATCHES);
			const fitted = fitLines(kept, maxOutputChars - 600);
			if (hits.length > GREP_MAX_MATCHES || fitted.shown < kept.length) {
				notes.unshift(
					`[truncated: showed ${plural(fitted.shown, "match", "matches")} and there are ` +
						`more; narrow the search with "path", "glob" or a more specific pattern]`,
				);
			}
			return ok([fitted.text, ...notes].join("\n"));
		},
	};
}

function whyNotSearched(read: Exclude<TextRead, { ok: true }>): string {
	switch (read.reason) {
		case "binary":
			return "it is a binary file";
		case "too-large":
			return `it is ${formatBytes(read.size ?? 0)}, over the ${formatBytes(GREP_MAX_NAMED_FILE_BYTES)} limit`;
		case "special":
			return "it is not a regular file";
		case "outside":
			return `it ${OUTSIDE_LINK}`;
		case "unreadable":
			return read.message ?? "it cannot be read";
		default:
			return "it does not exist";
	}
}

async function* oneFile(file: WalkedFile): AsyncGenerator<WalkedFile> {
	yield file;
}
