// The agent files under an agents folder (`<agentDir>/agents/`, `<project>/<config>/agents/`),
// listed without reading them: the launcher parses them (children/agents.ts) and the trust
// snapshot hashes the project's (session/trust-step.ts), so both see the same files.
import { type Dir, opendirSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { isInside } from "../util/index.ts";

/** A folder or file the listing could not take, and why. */
export interface AgentListError {
	path: string;
	message: string;
}

/** An agent file is a page of prose; a larger one is refused rather than cut. */
export const AGENT_FILE_MAX_BYTES = 256 * 1024;
/** Agent files read from one folder at most; entries looked at while listing it at most. */
const MAX_FILES = 200;
const MAX_ENTRIES = 5000;
/** Folders below an agents folder that are read (agents may be grouped in subfolders). */
const MAX_DEPTH = 4;

/**
 * The `*.md` files of a folder and its subfolders (not `*.chain.md`, not hidden folders), sorted
 * by path. A missing folder is empty; a folder that is, or leads through, a link out of `root`
 * is reported and not listed.
 */
export function listAgentFiles(dir: string, root: string): { files: string[]; errors: AgentListError[] } {
	let real: string;
	try {
		real = realpathSync(dir);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return { files: [], errors: [] };
		return {
			files: [],
			errors: [{ path: dir, message: `the agents folder cannot be read: ${(error as Error).message}` }],
		};
	}
	const realRoot = realOr(root);
	if (!isInside(realRoot, real)) {
		return {
			files: [],
			errors: [
				{
					path: dir,
					message:
						`the agents folder leads outside ${root} (to ${real}) through a ` +
						`symbolic link; ` +
						`its files are not read`,
				},
			],
		};
	}
	try {
		if (!statSync(real).isDirectory())
			return {
				files: [],
				errors: [{ path: dir, message: "is not a folder; agent files go in a folder of that name" }],
			};
	} catch (error) {
		return {
			files: [],
			errors: [{ path: dir, message: `the agents folder cannot be read: ${(error as Error).message}` }],
		};
	}
	const files: string[] = [];
	const errors: AgentListError[] = [];
	const budget = { entries: MAX_ENTRIES };
	walk(dir, realRoot, 0, files, errors, budget, new Set([real]));
	files.sort();
	if (files.length > MAX_FILES) {
		errors.push({
			path: dir,
			message: `holds ${files.length} agent files; only the first ${MAX_FILES} by path are read`,
		});
		files.length = MAX_FILES;
	}
	return { files, errors };
}

function walk(
	dir: string,
	realRoot: string,
	depth: number,
	files: string[],
	errors: AgentListError[],
	budget: { entries: number },
	visited: Set<string>,
): void {
	let handle: Dir | undefined;
	const subdirs: string[] = [];
	try {
		handle = opendirSync(dir);
		for (;;) {
			if (budget.entries-- <= 0) {
				errors.push({
					path: dir,
					message: `more than ${MAX_ENTRIES} entries under the agents folder; the rest are not read`,
				});
				break;
			}
			const entry = handle.readSync();
			if (!entry) break;
			const path = join(dir, entry.name);
			if (entry.name.endsWith(".chain.md")) continue;
			let isDir = entry.isDirectory();
			if (entry.isSymbolicLink()) {
				// A linked folder is followed when it stays inside the root; one leading out is reported.
				try {
					const target = realpathSync(path);
					if (statSync(target).isDirectory()) {
						if (!isInside(realRoot, target)) {
							errors.push({
								path,
								message:
									`leads outside the agents' root (to ${target}) through a symbolic ` +
									`link; its files ` +
									`are not read`,
							});
							continue;
						}
						isDir = true;
					}
				} catch {
					// a broken link: a *.md one goes to the reader, which reports nothing for a missing file
				}
			}
			if (isDir) {
				if (!entry.name.startsWith(".")) subdirs.push(path);
				continue;
			}
			// Anything else named *.md goes to the guarded reader, which refuses what is not a regular file.
			if (entry.name.endsWith(".md")) files.push(path);
		}
	} catch (error) {
		errors.push({ path: dir, message: `the agents folder cannot be listed: ${(error as Error).message}` });
	} finally {
		handle?.closeSync();
	}
	for (const sub of subdirs.sort()) {
		if (depth + 1 > MAX_DEPTH) {
			errors.push({ path: sub, message: `is more than ${MAX_DEPTH} folders deep; its agent files are not read` });
			continue;
		}
		const real = realOr(sub);
		if (visited.has(real)) continue;
		visited.add(real);
		walk(sub, realRoot, depth + 1, files, errors, budget, visited);
	}
}

function realOr(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return resolve(path);
	}
}
