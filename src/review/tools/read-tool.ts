// `read`: a text file with 1-based line numbers, a window at a time.
import { Type } from "typebox";
import { parseArgs } from "./args.ts";
import { confinePath, OUTSIDE_LINK } from "./confine.ts";
import { clipLine, fitLines } from "./output.ts";
import { formatBytes, readTextFile, splitLines, type TextRead } from "./text-file.ts";
import { fail, ok, type ReviewerTool } from "./types.ts";

export const READ_DEFAULT_LINES = 400;
const READ_MAX_LINES = 2000;
const READ_MAX_BYTES = 10 * 1024 * 1024;
const LINE_MAX_CHARS = 2000;

const READ_PARAMS = Type.Object({
	path: Type.String({ minLength: 1, description: "File path, relative to the repository root." }),
	offset: Type.Optional(Type.Integer({ minimum: 1, description: "First line to show (1-based). Default 1." })),
	limit: Type.Optional(
		Type.Integer({
			minimum: 1,
			maximum: READ_MAX_LINES,
			description: `How many lines to show. Default ${READ_DEFAULT_LINES}.`,
		}),
	),
});

export function createReadTool(root: string, maxOutputChars: number): ReviewerTool {
	return {
		name: "read",
		description: [
			`Read a text file of the repository, with line numbers. Shows ${READ_DEFAULT_LINES} ` +
				`lines from "offset" unless "limit" says otherwise,`,
			"and says how to continue when there is more. Paths are relative to the repository root.",
		].join(" "),
		parameters: READ_PARAMS,
		async execute(args) {
			const parsed = parseArgs("read", args, READ_PARAMS);
			if (!parsed.ok) return fail(parsed.error);
			const place = confinePath(root, parsed.values.path);
			if (!place.ok) return fail(`read: ${place.error}.`);
			const name = place.rel === "" ? "the repository root" : place.rel;

			const file = await readTextFile(place.realRoot, place.abs, READ_MAX_BYTES);
			if (!file.ok) return fail(readFailure(name, file));
			const lines = splitLines(file.text);
			if (lines.length === 0) return ok(`(${name} is empty)`);

			const offset = parsed.values.offset ?? 1;
			const limit = parsed.values.limit ?? READ_DEFAULT_LINES;
			if (offset > lines.length)
				return fail(`read: offset ${offset} is past the end; ${name} has ${lines.length} lines.`);
			const end = Math.min(lines.length, offset + limit - 1);
			const width = String(end).length;
			const lineCap = Math.min(LINE_MAX_CHARS, Math.floor(maxOutputChars / 4));
			const numbered = lines
				.slice(offset - 1, end)
				.map((line, i) => `${String(offset + i).padStart(width)}\t${clipLine(line, lineCap)}`);

			const fitted = fitLines(numbered, maxOutputChars - 300);
			const last = offset + fitted.shown - 1;
			if (fitted.shown < numbered.length) {
				return ok(
					`${fitted.text}\n[truncated at ${maxOutputChars} characters: showed lines ${offset}–${last} ` +
						`of ${lines.length}; continue with offset: ${last + 1}]`,
				);
			}
			if (end < lines.length)
				return ok(
					`${fitted.text}\n[showed lines ${offset}–${end} of ${lines.length}; continue with offset: ${end + 1}]`,
				);
			return ok(offset > 1 ? `${fitted.text}\n[end of file: ${lines.length} lines]` : fitted.text);
		},
	};
}

function readFailure(name: string, file: Exclude<TextRead, { ok: true }>): string {
	switch (file.reason) {
		case "missing":
			return `read: ${name} does not exist; use ls or find to see which files there are.`;
		case "directory":
			return `read: ${name} is a directory; use ls to list it.`;
		case "special":
			return `read: ${name} is not a regular file (a device, socket or pipe) and cannot be read.`;
		case "binary":
			return `read: ${name} is a binary file (${formatBytes(file.size ?? 0)}); only text files can be shown.`;
		case "too-large":
			return (
				`read: ${name} is ${formatBytes(file.size ?? 0)}, over the ${formatBytes(READ_MAX_BYTES)} ` +
				`read limit; use grep with "path": "${name}" to find the lines you need.`
			);
		case "outside":
			return `read: ${name} ${OUTSIDE_LINK}.`;
		case "unreadable":
			return `read: ${name} cannot be read (${file.message}).`;
	}
}
