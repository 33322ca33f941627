// Finding the agent files: the package's `agents/`, then the user's `<agentDir>/agents/`, then
// the project's `<cwd>/<configDirName>/agents/` (trusted projects only: an untrusted repository
// must not define the agents its own parent launches), each with its subfolders. A user agent
// shadows a package agent of the same name; a project agent may take such a name only as a
// narrower version (see shadowProblem). The user's and the project's folders are someone else's
// files, so a folder that links out of its root is not listed, each file is read through the
// guarded reader (regular files only, bounded), and a broken file is reported with the names it
// claims: the launcher refuses those names rather than fall back to another agent of that name.
import { basename, join } from "node:path";
import { AGENT_FILE_MAX_BYTES, type FileState, type FileTrust, listAgentFiles, readState } from "../host/index.ts";
import type { ChildPolicyLayer } from "../settings/index.ts";
import { fileToken, PACKAGE_DIR, readFileInRoot, userRoot } from "../util/index.ts";
import {
	type AgentDefinition,
	type AgentLoadError,
	effectiveTools,
	isAgentLoadError,
	parseAgentFile,
} from "./agent-file.ts";

/** The agents shipped with the package. */
export const PACKAGE_AGENTS_DIR = join(PACKAGE_DIR, "agents");

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
	/** The settings' child policy keys (agent-policy.ts), added by the tool before a launch. */
	policy?: ChildPolicyLayer[];
}

export function loadAgents(options: LoadAgentsOptions): LoadedAgents {
	const sources: Array<{ source: AgentDefinition["source"]; dir: string; root: string }> = [];
	const packageAgents = join(options.packageDir ?? PACKAGE_DIR, "agents");
	sources.push({ source: "package", dir: packageAgents, root: packageAgents });
	sources.push({ source: "user", dir: join(options.agentDir, "agents"), root: userRoot(options.agentDir) });
	if (options.projectTrusted)
		sources.push({ source: "project", dir: join(options.cwd, options.configDirName, "agents"), root: options.cwd });

	const agents = new Map<string, AgentDefinition>();
	const errors: AgentLoadError[] = [];
	for (const { source, dir, root } of sources) {
		const listed = listAgentFiles(dir, root);
		errors.push(...listed.errors.map((e) => ({ ...e, source })));
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
				errors.push({
					path,
					message:
						`the name "${parsed.name}" is already used by ${earlier}; rename one of them ` +
						`(launches of "${parsed.name}" are refused until then)`,
					names: [parsed.name],
					source,
				});
				continue;
			}
			seen.set(parsed.name, path);
			const shadowed = agents.get(parsed.name);
			if (source === "project" && shadowed) {
				const refused = shadowProblem(parsed, shadowed);
				if (refused) {
					errors.push({ path, message: refused, names: [parsed.name], source });
					continue;
				}
				agents.set(parsed.name, {
					...parsed,
					base: {
						path: shadowed.path,
						source: shadowed.source as "package" | "user",
						...(shadowed.permissions ? { permissions: shadowed.permissions } : {}),
					},
				});
				continue;
			}
			agents.set(parsed.name, parsed);
		}
	}
	return { agents, errors };
}

/**
 * A project agent may take the name of a user or package agent only as a narrower version of
 * it: no tool the other lacks, no extension of its own (extensions are code that runs in the
 * child). Its permission rules are layered over the other's and can only tighten them.
 */
function shadowProblem(project: AgentDefinition, other: AgentDefinition): string | undefined {
	const allowed = new Set(effectiveTools(other));
	const extra = effectiveTools(project).filter((t) => !allowed.has(t));
	if (extra.length) {
		return (
			`this project agent takes the name "${project.name}" of the ${other.source} agent ` +
			`${other.path} and asks for tools that one does not have (${extra.join(", ")}); ` +
			`a project agent may narrow an agent of yours, never widen it. Rename the project ` +
			`agent, or drop those tools (launches of "${project.name}" are refused until then)`
		);
	}
	const ext = [...(project.extensions ?? []), ...(project.subagentOnlyExtensions ?? [])];
	if (ext.length) {
		return (
			`this project agent takes the name "${project.name}" of the ${other.source} agent ` +
			`${other.path} and adds extensions (${ext.join(", ")}), code the child would ` +
			`run; rename the project agent (launches of "${project.name}" are refused until then)`
		);
	}
	return undefined;
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
	const result =
		read.state === "refused"
			? { path, message: read.reason, names: [basename(path).replace(/\.md$/, "")], source }
			: parseAgentFile(read.text, path, source);
	if (cache.size >= CACHE_MAX) cache.clear();
	const entry = { token, result, state: readState(read) };
	cache.set(key, entry);
	return entry;
}
