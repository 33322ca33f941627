// One agent file: Markdown with YAML frontmatter between `---` lines; the body is the agent's
// system prompt. Pure: text in, a definition or an error with the file's line out. Line numbers
// count from the file's first line, so an error points where the user has to look.
import { isMap, isScalar, LineCounter, type Node, type Pair, parseDocument, type YAMLMap } from "yaml";
import { isThinking, parseModelRef, THINKING_LEVELS } from "../models/index.ts";

export type ToolPermission = "allow" | "ask" | "deny";
export const TOOL_PERMISSIONS: readonly ToolPermission[] = ["allow", "ask", "deny"];

export interface AgentDefinition {
	name: string;
	description: string;
	/** "inherit" (the parent's model) or "provider/id[:thinking]". */
	model: string;
	/** A thinking level or "inherit"; absent when the file does not say. */
	thinking?: string;
	/** Tool allowlist; undefined means Pi's defaults. */
	tools?: string[];
	/** Tool → allow | ask | deny, from `permission:` or `permissions:`. */
	permissions?: Record<string, ToolPermission>;
	extensions?: string[];
	subagentOnlyExtensions?: string[];
	/** The body, trimmed. */
	systemPrompt: string;
	source: "package" | "user" | "project";
	path: string;
}

export interface AgentLoadError {
	path: string;
	line?: number;
	message: string;
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

export function parseAgentFile(text: string, path: string, source: AgentDefinition["source"]): AgentDefinition | AgentLoadError {
	const fail = (message: string, line?: number): AgentLoadError => ({ path, ...(line !== undefined ? { line } : {}), message });
	const lines = text.split(/\r?\n/);
	if (lines[0]?.trimEnd() !== "---") return fail("an agent file starts with a `---` line, then YAML frontmatter (name, description, ...), then `---` and the system prompt", 1);
	const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
	if (close < 0) return fail("the frontmatter is not closed: add a `---` line after it, before the system prompt", 1);

	const lineCounter = new LineCounter();
	const doc = parseDocument(lines.slice(1, close).join("\n"), { lineCounter, prettyErrors: false, uniqueKeys: true });
	// The frontmatter's first line is the file's second.
	const fileLine = (offset: number | undefined) => (offset === undefined ? undefined : lineCounter.linePos(offset).line + 1);
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
	const pairOf = (map: YAMLMap, key: string) => map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<Node, Node> | undefined;
	const lineOfKey = (key: string) => fileLine(pairOf(top, key)?.key?.range?.[0]);
	const has = (key: string) => pairOf(top, key) !== undefined;

	// name
	if (!has("name")) return fail("`name:` is missing; give the agent a name (letters, digits, _ . -)", 1);
	const name = data.name;
	if (typeof name !== "string" || !NAME_PATTERN.test(name) || name.length > NAME_MAX) {
		return fail(`\`name\` must be letters, digits, _ . - (starting with a letter or digit, at most ${NAME_MAX} characters); got ${show(name)}`, lineOfKey("name"));
	}
	// description
	if (!has("description")) return fail("`description:` is missing; say in a line what the agent is for (the parent model picks agents by it)", 1);
	const description = data.description;
	if (typeof description !== "string" || !description.trim()) return fail(`\`description\` must be non-empty text; got ${show(description)}`, lineOfKey("description"));
	// model
	let model = "inherit";
	if (has("model") && data.model !== null) {
		if (typeof data.model !== "string") return fail(`\`model\` must be "inherit" or provider/id[:thinking]; got ${show(data.model)}`, lineOfKey("model"));
		model = data.model.trim();
		if (model !== "inherit") {
			const parsed = parseModelRef(model);
			if (!parsed.ok) return fail(`\`model\`: ${parsed.error}, or write inherit`, lineOfKey("model"));
		}
	}
	// thinking
	let thinking: string | undefined;
	if (has("thinking") && data.thinking !== null) {
		if (data.thinking !== "inherit" && !isThinking(data.thinking)) {
			return fail(`\`thinking\` must be one of ${THINKING_LEVELS.join(", ")} or inherit; got ${show(data.thinking)}`, lineOfKey("thinking"));
		}
		thinking = data.thinking as string;
	}
	// lists
	const lists: Partial<Record<"tools" | "extensions" | "subagentOnlyExtensions", string[]>> = {};
	for (const key of ["tools", "extensions", "subagentOnlyExtensions"] as const) {
		if (!has(key) || data[key] === null) continue;
		const list = stringList(data[key], key === "tools");
		if (typeof list === "string") return fail(`\`${key}\` ${list}`, lineOfKey(key));
		lists[key] = list;
	}
	// permissions, under either spelling
	if (has("permission") && has("permissions")) {
		return fail("both `permission:` and `permissions:` are given; keep one (they mean the same)", lineOfKey("permissions"));
	}
	const permKey = has("permission") ? "permission" : "permissions";
	let permissions: Record<string, ToolPermission> | undefined;
	if (has(permKey) && data[permKey] !== null) {
		const node = pairOf(top, permKey)?.value;
		if (!isMap(node)) return fail(`\`${permKey}\` must be a mapping of tool name to allow, ask or deny (e.g. "bash: ask")`, lineOfKey(permKey));
		permissions = {};
		for (const pair of node.items) {
			const tool = isScalar(pair.key) ? pair.key.value : undefined;
			const keyLine = fileLine((pair.key as Node | null)?.range?.[0]) ?? lineOfKey(permKey);
			if (typeof tool !== "string" || !tool.trim()) return fail(`\`${permKey}\`: a tool name must be text; got ${show(tool)}`, keyLine);
			const value = isScalar(pair.value) ? pair.value.value : undefined;
			if (typeof value !== "string" || !(TOOL_PERMISSIONS as readonly string[]).includes(value)) {
				return fail(`\`${permKey}\`: the permission for tool "${tool}" must be allow, ask or deny; got ${show(value ?? (pair.value as Node | null)?.toJSON())}`, keyLine);
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
		systemPrompt: lines.slice(close + 1).join("\n").trim(),
		source,
		path,
	};
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
		if (singleWords && /\s/.test(name)) return `holds "${name}"; a tool name has no spaces (separate names with commas)`;
		if (name && !out.includes(name)) out.push(name);
	}
	return out;
}

function show(value: unknown): string {
	if (value === undefined) return "nothing";
	const text = typeof value === "string" ? `"${value}"` : JSON.stringify(value) ?? String(value);
	return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
