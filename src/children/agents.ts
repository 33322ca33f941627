// Finding the agent files: the package's `agents/`, then the user's `<agentDir>/agents/`, then
// the project's `<cwd>/<configDirName>/agents/` (trusted projects only: an untrusted repository
// must not define the agents its own parent launches); a later one shadows an earlier one of the
// same name. The user's and the project's folders are someone else's files, so a folder that
// links out of its root is not listed, each file is read through the guarded reader (regular
// files only, bounded), and a broken file is reported and skipped while the rest load.
import { type Dir, opendirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type FileState, type FileTrust, readState } from "../host/index.ts";
import { fileToken, readFileInRoot, userRoot } from "../util/index.ts";
import { type AgentDefinition, type AgentLoadError, isAgentLoadError, parseAgentFile } from "./agent-file.ts";

/** The package's root folder (this file is src/children/agents.ts). */
export const PACKAGE_DIR = resolve(fileURLToPath(new URL("../../", import.meta.url)));
/** The agents shipped with the package. */
export const PACKAGE_AGENTS_DIR = join(PACKAGE_DIR, "agents");

/** An agent file is a page of prose; a larger one is refused rather than cut. */
export const AGENT_FILE_MAX_BYTES = 256 * 1024;
/** Agent files read from one folder at most; entries looked at while listing it at most. */
const MAX_FILES = 200;
const MAX_ENTRIES = 5000;

export interface LoadAgentsOptions {
	/** The package's root folder (its `agents/` is read); default: this package's. */
	packageDir?: string;
	/** Pi's agent folder (`getAgentDir()`); its `agents/` is read. */
	agentDir: string;
	cwd: string;
	/** The host's CONFIG_DIR_NAME (".pi" for Pi). */
	configDirName: string;
	/** Whether the project may define agents. */
	projectTrusted: boolean;
	/** The trust snapshot: a project agent file added or changed since the decision is held back. */
	trust?: FileTrust;
}

export interface LoadedAgents {
	/** By name; the later source's definition where names repeat. */
	agents: Map<string, AgentDefinition>;
	errors: AgentLoadError[];
}

export function loadAgents(options: LoadAgentsOptions): LoadedAgents {
	const sources: Array<{ source: AgentDefinition["source"]; dir: string; root: string }> = [];
	const packageAgents = join(options.packageDir ?? PACKAGE_DIR, "agents");
	sources.push({ source: "package", dir: packageAgents, root: packageAgents });
	sources.push({ source: "user", dir: join(options.agentDir, "agents"), root: userRoot(options.agentDir) });
	if (options.projectTrusted) sources.push({ source: "project", dir: join(options.cwd, options.configDirName, "agents"), root: options.cwd });

	const agents = new Map<string, AgentDefinition>();
	const errors: AgentLoadError[] = [];
	for (const { source, dir, root } of sources) {
		const listed = listAgentFiles(dir, root);
		errors.push(...listed.errors);
		const seen = new Map<string, string>();
		for (const path of listed.files) {
			const read = readAgentFile(path, root, source);
			if (source === "project" && options.trust && read && !options.trust.allows(path, read.state)) continue;
			const parsed = read?.result;
			if (!parsed) continue;
			if (isAgentLoadError(parsed)) {
				errors.push(parsed);
				continue;
			}
			const earlier = seen.get(parsed.name);
			if (earlier) {
				errors.push({ path, message: `the name "${parsed.name}" is already used by ${earlier} in the same folder; rename one of them (this file is skipped)` });
				continue;
			}
			seen.set(parsed.name, path);
			agents.set(parsed.name, parsed);
		}
	}
	return { agents, errors };
}

/**
 * The `*.md` files of a folder, sorted by name. A missing folder is empty; a folder that is,
 * or leads through, a link out of `root` is reported and not listed.
 */
export function listAgentFiles(dir: string, root: string): { files: string[]; errors: AgentLoadError[] } {
	let real: string;
	try {
		real = realpathSync(dir);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return { files: [], errors: [] };
		return { files: [], errors: [{ path: dir, message: `the agents folder cannot be read: ${(error as Error).message}` }] };
	}
	if (!isInside(realOr(root), real)) {
		return { files: [], errors: [{ path: dir, message: `the agents folder leads outside ${root} (to ${real}) through a symbolic link; its files are not read` }] };
	}
	let handle: Dir | undefined;
	const names: string[] = [];
	const errors: AgentLoadError[] = [];
	try {
		if (!statSync(real).isDirectory()) return { files: [], errors: [{ path: dir, message: "is not a folder; agent files go in a folder of that name" }] };
		handle = opendirSync(real);
		for (let seen = 0; seen < MAX_ENTRIES; seen++) {
			const entry = handle.readSync();
			if (!entry) break;
			// Directories are not descended into; anything else named *.md goes to the guarded reader, which refuses what is not a regular file.
			if (entry.name.endsWith(".md") && !entry.isDirectory()) names.push(entry.name);
		}
	} catch (error) {
		errors.push({ path: dir, message: `the agents folder cannot be listed: ${(error as Error).message}` });
	} finally {
		handle?.closeSync();
	}
	names.sort();
	if (names.length > MAX_FILES) {
		errors.push({ path: dir, message: `holds ${names.length} agent files; only the first ${MAX_FILES} by name are read` });
		names.length = MAX_FILES;
	}
	return { files: names.map((name) => join(dir, name)), errors };
}

// Parsed files by (source, root, path), valid while the file's size, times and inode stay the same.
type AgentRead = { token: string; result: AgentDefinition | AgentLoadError; state: FileState };
const cache = new Map<string, AgentRead>();
const CACHE_MAX = 1000;

function readAgentFile(path: string, root: string, source: AgentDefinition["source"]): AgentRead | undefined {
	const key = `${source}\0${root}\0${path}`;
	const token = fileToken(path);
	const hit = cache.get(key);
	if (hit && hit.token === token && !token.startsWith("stat-error")) return hit;
	const read = readFileInRoot(path, { root, maxBytes: AGENT_FILE_MAX_BYTES, overLimit: "refuse" });
	if (read.state === "missing") return undefined; // gone since the listing, or a broken link
	const result = read.state === "refused" ? { path, message: read.reason } : parseAgentFile(read.text, path, source);
	if (cache.size >= CACHE_MAX) cache.clear();
	const entry = { token, result, state: readState(read) };
	cache.set(key, entry);
	return entry;
}

function realOr(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return resolve(path);
	}
}

function isInside(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel === "" || !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}
