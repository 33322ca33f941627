// `ls`: the entries of one folder, folders marked with a trailing `/`.
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { Type } from "typebox";
import { parseArgs } from "./args.ts";
import { confinePath, insideRealRoot, toSlashes } from "./confine.ts";
import { fitLines } from "./output.ts";
import { fail, ok, type ReviewerTool } from "./types.ts";
import { compareNames } from "./walk.ts";

const LS_MAX_ENTRIES = 500;

const LS_PARAMS = Type.Object({
	path: Type.Optional(Type.String({ description: "Folder path, relative to the repository root. Default: the root." })),
});

export function createLsTool(root: string, maxOutputChars: number): ReviewerTool {
	return {
		name: "ls",
		description:
			"List a folder of the repository (default: the root). Folders end with /; symbolic links show where they point.",
		parameters: LS_PARAMS,
		async execute(args) {
			const parsed = parseArgs("ls", args, LS_PARAMS);
			if (!parsed.ok) return fail(parsed.error);
			const place = confinePath(root, parsed.values.path ?? "");
			if (!place.ok) return fail(`ls: ${place.error}.`);
			const name = place.rel === "" ? "the repository root" : place.rel;

			let entries: Dirent[];
			try {
				entries = await readdir(place.abs, { withFileTypes: true });
			} catch (error) {
				const code = (error as NodeJS.ErrnoException).code;
				if (code === "ENOENT") return fail(`ls: ${name} does not exist; list its parent folder to see what is there.`);
				if (code === "ENOTDIR") return fail(`ls: ${name} is a file, not a folder; use read to see it.`);
				return fail(`ls: ${name} cannot be listed (${(error as Error).message}).`);
			}
			const visible = entries
				.filter((e) => e.name.toLowerCase() !== ".git")
				.sort((a, b) => compareNames(a.name, b.name));
			if (visible.length === 0) return ok(`(${name} is empty)`);

			const shown = visible.slice(0, LS_MAX_ENTRIES);
			const lines = await Promise.all(shown.map((e) => describeEntry(e, place.abs, place.realRoot)));
			const fitted = fitLines(lines, maxOutputChars - 300);
			if (fitted.shown < visible.length) {
				return ok(
					`${fitted.text}\n[truncated: showed ${fitted.shown} of ${visible.length} entries; ` +
						`use find with a pattern, or ls a subfolder, to narrow it]`,
				);
			}
			return ok(fitted.text);
		},
	};
}

async function describeEntry(entry: Dirent, dir: string, realRoot: string): Promise<string> {
	if (entry.isDirectory()) return `${entry.name}/`;
	if (entry.isFile()) return entry.name;
	if (!entry.isSymbolicLink()) return `${entry.name} (special file)`;
	let target: string;
	try {
		target = await realpath(join(dir, entry.name));
	} catch {
		return `${entry.name} -> (broken link)`;
	}
	if (!insideRealRoot(realRoot, target))
		return `${entry.name} -> (outside the repository or into .git; cannot be read)`;
	const rel = toSlashes(relative(realRoot, target)) || ".";
	try {
		return (await stat(target)).isDirectory() ? `${entry.name}/ -> ${rel}/` : `${entry.name} -> ${rel}`;
	} catch {
		return `${entry.name} -> (broken link)`;
	}
}
