// One agent file: Markdown with YAML frontmatter between `---` lines; the body is the agent's
// system prompt. Pure: text in, a definition or an error with the file's line out. Line numbers
// count from the file's first line, so an error points where the user has to look.
import { basename } from "node:path";
import { createRequire } from "node:module";
import type { Node, Pair, YAMLMap } from "yaml";
import { isThinking, parseModelRef, THINKING_LEVELS } from "../models/index.ts";

/** The built-in tools a child gets when its agent file has no `tools:` line. */
// Loaded when the first agent file is read, not with Pi.
let yamlModule: typeof import("yaml") | undefined;
const yaml = () => (yamlModule ??= createRequire(import.meta.url)("yaml") as typeof import("yaml"));

export const DEFAULT_CHILD_TOOLS = ["read", "bash", "edit", "write"];

/** The tools an agent's child gets: its list (or the defaults) without its `excludeTools`. */
export function effectiveTools(agent: { tools?: string[]; excludeTools?: string[] }): string[] {
	const out = new Set(agent.excludeTools ?? []);
	return (agent.tools ?? DEFAULT_CHILD_TOOLS).filter((t) => !out.has(t));
}

export type ToolPermission = "allow" | "ask" | "deny";
export const TOOL_PERMISSIONS: readonly ToolPermission[] = ["allow", "ask", "deny"];

export interface AgentDefinition {
	name: string;
	description: string;
	/** "inherit" (the parent's model) or "provider/id[:thinking]". */
	model: string;
	/** A thinking level or "inherit"; absent when the file does not say. */
	thinking?: string;
	/** Tool allowlist; undefined means the defaults, an empty list (`tools:` left empty) no tools. */
	tools?: string[];
	/** Tools taken away after `tools` (or the defaults) are settled. */
	excludeTools?: string[];
	/** Tool → allow | ask | deny, from `permission:` or `permissions:`. */
	permissions?: Record<string, ToolPermission>;
	extensions?: string[];
	subagentOnlyExtensions?: string[];
	/** How deep the tree below this agent may go (the main session is 0); only ever lowers `children.maxDepth`. */
	maxDepth?: number;
	/** The body, trimmed. */
	systemPrompt: string;
	source: "package" | "user" | "project";
	path: string;
	/** For a project agent that takes the name of a user or package agent: the one it stands in for (see agents.ts). */
	base?: { path: string; source: "package" | "user"; permissions?: Record<string, ToolPermission> };
}

export interface AgentLoadError {
	path: string;
	line?: number;
	message: string;
	/**
	 * The agent names the broken file claims (its `name:` when that much can be read, and its
	 * file name): launches of them are refused, so a broken file never falls through to another
	 * agent of the same name. Absent for a problem with a whole folder.
	 */
	names?: string[];
	source?: "package" | "user" | "project";
}

/** Letters, digits, `_`, `.`, `-`; starting with a letter or digit so it is never `.` or `..`. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const NAME_MAX = 64;

export function isAgentLoadError(value: AgentDefinition | AgentLoadError): value is AgentLoadError {
	return !("systemPrompt" in value);
}

/** `path:line: message`, as editors and terminals link it. */
export function formatAgentError(error: AgentLoadError): string {
	return `${error.path}${error.line !== undefined ? `:${error.line}` : ""}: ${error.message}`;
}

export function parseAgentFile(
	text: string,
	path: string,
	source: AgentDefinition["source"],
): AgentDefinition | AgentLoadError {
	const { isMap, isScalar, LineCounter, parseDocument } = yaml();
	const names = claimedNames(text, path);
	const fail = (message: string, line?: number): AgentLoadError => ({
		path,
		...(line !== undefined ? { line } : {}),
		message,
		names,
		source,
	});
	const lines = text.split(/\r?\n/);
	if (lines[0]?.trimEnd() !== "---")
		return fail(
			"an agent file starts with a `---` line, then YAML frontmatter (name, description, " +
				"...), then `---` and the system prompt",
			1,
		);
	const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
	if (close < 0) return fail("the frontmatter is not closed: add a `---` line after it, before the system prompt", 1);

	let lineCounter = new LineCounter();
	const front = lines.slice(1, close);
	let doc = parseDocument(front.join("\n"), { lineCounter, prettyErrors: false, uniqueKeys: true });
	if (doc.errors.length) {
		// Frontmatter written for a line-based reader (`description: Reviews code: finds bugs`) is
		// read as that reader would: such a value is taken whole. Lines keep their numbers.
		const quoted = front.map(quotePlainValue);
		const counter = new LineCounter();
		const retry = parseDocument(quoted.join("\n"), { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
		if (!retry.errors.length && quoted.some((l, i) => l !== front[i])) {
			doc = retry;
			lineCounter = counter;
		}
	}
	// The frontmatter's first line is the file's second.
	const fileLine = (offset: number | undefined) =>
		offset === undefined ? undefined : lineCounter.linePos(offset).line + 1;
	const [yamlError] = doc.errors;
	if (yamlError) return fail(`the frontmatter is not valid YAML: ${yamlError.message}`, fileLine(yamlError.pos[0]));
	if (!isMap(doc.contents)) return fail("the frontmatter must be a mapping of fields (name: ..., description: ...)", 2);
	const top = doc.contents;

	let data: Record<string, unknown>;
	try {
		data = doc.toJS({ maxAliasCount: 50 }) as Record<string, unknown>;
	} catch (error) {
		return fail(`the frontmatter cannot be read: ${(error as Error).message}`, 2);
	}
	const pairOf = (map: YAMLMap, key: string) =>
		map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<Node, Node> | undefined;
	const lineOfKey = (key: string) => fileLine(pairOf(top, key)?.key?.range?.[0]);
	const has = (key: string) => pairOf(top, key) !== undefined;

	// name
	if (!has("name")) return fail("`name:` is missing; give the agent a name (letters, digits, _ . -)", 1);
	const name = data.name;
	if (typeof name !== "string" || !NAME_PATTERN.test(name) || name.length > NAME_MAX) {
		return fail(
			`\`name\` must be letters, digits, _ . - (starting with a letter or digit, at ` +
				`most ${NAME_MAX} characters); got ${show(name)}`,
			lineOfKey("name"),
		);
	}
	// description
	if (!has("description"))
		return fail(
			"`description:` is missing; say in a line what the agent is for (the parent model picks agents by it)",
			1,
		);
	const description = data.description;
	if (typeof description !== "string" || !description.trim())
		return fail(`\`description\` must be non-empty text; got ${show(description)}`, lineOfKey("description"));
	// model
	let model = "inherit";
	if (has("model") && data.model !== null) {
		if (typeof data.model !== "string")
			return fail(
				`\`model\` must be "inherit", provider/id[:thinking] or a bare model id; got ${show(data.model)}`,
				lineOfKey("model"),
			);
		model = data.model.trim();
		// A bare id (no provider) is looked up among the models Pi has when the agent is launched.
		if (model !== "inherit" && (model.includes("/") || !BARE_ID.test(model))) {
			const parsed = parseModelRef(model);
			if (!parsed.ok) return fail(`\`model\`: ${parsed.error}, a bare model id, or inherit`, lineOfKey("model"));
		}
	}
	// thinking
	let thinking: string | undefined;
	// `thinking: false` is how other agent formats say "off".
	if (data.thinking === false) data.thinking = "off";
	if (has("thinking") && data.thinking !== null) {
		if (data.thinking !== "inherit" && !isThinking(data.thinking)) {
			return fail(
				`\`thinking\` must be one of ${THINKING_LEVELS.join(", ")} or inherit; got ${show(data.thinking)}`,
				lineOfKey("thinking"),
			);
		}
		thinking = data.thinking as string;
	}
	// lists
	const lists: Partial<Record<"tools" | "excludeTools" | "extensions" | "subagentOnlyExtensions", string[]>> = {};
	for (const key of ["tools", "excludeTools", "extensions", "subagentOnlyExtensions"] as const) {
		if (!has(key)) continue;
		// `tools:` left empty means no tools at all (never the defaults).
		if (data[key] === null) {
			if (key === "tools") lists.tools = [];
			continue;
		}
		const list = stringList(data[key], key === "tools" || key === "excludeTools");
		if (typeof list === "string") return fail(`\`${key}\` ${list}`, lineOfKey(key));
		lists[key] = list;
	}
	// maxDepth (pi-subagents spells it maxSubagentDepth)
	let maxDepth: number | undefined;
	if (has("maxDepth") && has("maxSubagentDepth"))
		return fail("both `maxDepth:` and `maxSubagentDepth:` are given; keep one", lineOfKey("maxSubagentDepth"));
	const depthKey = has("maxSubagentDepth") ? "maxSubagentDepth" : "maxDepth";
	if (has(depthKey) && data[depthKey] !== null) {
		const n = data[depthKey];
		if (!Number.isInteger(n) || (n as number) < 0 || (n as number) > MAX_DEPTH_FIELD)
			return fail(
				`\`${depthKey}\` must be a whole number from 0 to ${MAX_DEPTH_FIELD} (the deepest a child ` +
					`below this agent may sit, the main session being 0); got ${show(n)}`,
				lineOfKey(depthKey),
			);
		maxDepth = n as number;
	}
	// permissions, under either spelling
	if (has("permission") && has("permissions")) {
		return fail(
			"both `permission:` and `permissions:` are given; keep one (they mean the same)",
			lineOfKey("permissions"),
		);
	}
	const permKey = has("permission") ? "permission" : "permissions";
	let permissions: Record<string, ToolPermission> | undefined;
	if (has(permKey) && data[permKey] !== null) {
		const node = pairOf(top, permKey)?.value;
		if (!isMap(node))
			return fail(
				`\`${permKey}\` must be a mapping of tool name to allow, ask or deny (e.g. "bash: ask")`,
				lineOfKey(permKey),
			);
		permissions = {};
		for (const pair of node.items) {
			const tool = isScalar(pair.key) ? pair.key.value : undefined;
			const keyLine = fileLine((pair.key as Node | null)?.range?.[0]) ?? lineOfKey(permKey);
			if (typeof tool !== "string" || !tool.trim())
				return fail(`\`${permKey}\`: a tool name must be text; got ${show(tool)}`, keyLine);
			const value = isScalar(pair.value) ? pair.value.value : undefined;
			if (typeof value !== "string" || !(TOOL_PERMISSIONS as readonly string[]).includes(value)) {
				return fail(
					`\`${permKey}\`: the permission for tool "${tool}" must be allow, ask or deny; ` +
						`got ${show(value ?? (pair.value as Node | null)?.toJSON())}`,
					keyLine,
				);
			}
			permissions[tool.trim()] = value as ToolPermission;
		}
	}

	return {
		name,
		description: description.trim(),
		model,
		...(thinking !== undefined ? { thinking } : {}),
		...lists,
		...(permissions ? { permissions } : {}),
		...(maxDepth !== undefined ? { maxDepth } : {}),
		systemPrompt: lines
			.slice(close + 1)
			.join("\n")
			.trim(),
		source,
		path,
	};
}

const MAX_DEPTH_FIELD = 8;

/** A model id without a provider, with an optional `:thinking`. */
const BARE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:@+-]*$/;

/** The names a file claims: its `name:` line when one can be read, and its file name. */
function claimedNames(text: string, path: string): string[] {
	const fromFile = basename(path).replace(/\.md$/, "");
	const line = /^name:[ \t]*["']?([A-Za-z0-9][A-Za-z0-9_.-]*)["']?[ \t]*$/m.exec(text.split(/\r?\n---/)[0] ?? "");
	return [...new Set([...(line ? [line[1]] : []), fromFile])];
}

/** `key: a: b` → `key: "a: b"`, for a top-level plain value a line-based reader takes whole. */
function quotePlainValue(line: string): string {
	const m = /^([A-Za-z_][A-Za-z0-9_-]*):[ \t]+(.+?)[ \t]*$/.exec(line);
	if (!m || /^["'[{|>&*!#%@`]/.test(m[2]) || !/: /.test(m[2])) return line;
	return `${m[1]}: ${JSON.stringify(m[2])}`;
}

/** A YAML list of names, or one comma-separated string; the reason as a string when neither. */
function stringList(value: unknown, singleWords: boolean): string[] | string {
	const items = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : undefined;
	if (!items) return `must be a list of names (or one comma-separated line); got ${show(value)}`;
	const out: string[] = [];
	for (const item of items) {
		if (typeof item !== "string") return `must hold names only; got ${show(item)}`;
		const name = item.trim();
		if (!name && typeof value !== "string") return "holds an empty name";
		if (singleWords && /\s/.test(name))
			return `holds "${name}"; a tool name has no spaces (separate names with commas)`;
		if (name && !out.includes(name)) out.push(name);
	}
	return out;
}

function show(value: unknown): string {
	if (value === undefined) return "nothing";
	const text = typeof value === "string" ? `"${value}"` : (JSON.stringify(value) ?? String(value));
	return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
