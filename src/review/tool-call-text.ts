// One tool call and its result, as a person would read them in the reviewer's record of the run:
// the call in a line (its path, its command) rather than raw JSON, the result right under it.
// A long result keeps its head and its tail (a test or build run ends with its verdict), and
// says how much of the middle was left out. Pure.
import { relative, resolve, sep } from "node:path";
import { clip, contentText, headAndTail } from "../util/index.ts";

const ARGS_CHARS = 1200;
export const TOOL_RESULT_CHARS = 2400;
/** Of a long result, this much comes from its start; the rest of the room goes to its end. */
const RESULT_HEAD_CHARS = 700;
const DIFF_CHARS = 3000;

export interface CallLike {
	name: string;
	arguments: unknown;
}

export interface ResultLike {
	toolName?: string;
	content?: unknown;
	isError?: boolean;
	details?: unknown;
}

export interface CallContext {
	/** Paths (repository-relative) whose content the input shows under "The change": not repeated here. */
	shownFiles: ReadonlySet<string>;
	/** The session's folder and the repository root, to place the paths the agent's tools name. */
	cwd?: string;
	root?: string;
}

/** A call with its result under it (or a line saying none was recorded). */
export function callText(call: CallLike, result: ResultLike | undefined, ctx: CallContext): string {
	const diff = diffOf(result);
	const head = `[Tool call] ${callLine(call, diff !== undefined, ctx)}`;
	if (!result) return `${head}\n[no result recorded]`;
	// An edit's diff of a file the input shows under "The change" would say the same twice.
	const path = (call.arguments as { path?: unknown } | null)?.path;
	const shown = call.name === "edit" && typeof path === "string" && shownIn(ctx, path);
	return `${head}\n${resultText(result, shown)}`;
}

/** A result on its own (its call is not in the record) or under its call; `diffShown`: its diff is elsewhere. */
export function resultText(result: ResultLike, diffShown = false): string {
	const diff = diffOf(result);
	const text = contentText(result.content).trimEnd();
	const body =
		diff === undefined
			? headAndTail(text, TOOL_RESULT_CHARS, RESULT_HEAD_CHARS)
			: diffShown
				? `${clip(text, 300)} (its diff is part of "The change", above)`
				: `${clip(text, 300)}\n${headAndTail(diff, DIFF_CHARS)}`;
	return `[Tool result${result.isError ? ", error" : ""}]\n${body}`;
}

function diffOf(result: ResultLike | undefined): string | undefined {
	const diff = (result?.details as { diff?: unknown } | undefined)?.diff;
	return typeof diff === "string" && diff ? diff : undefined;
}

function callLine(call: CallLike, resultHasDiff: boolean, ctx: CallContext): string {
	const args = (typeof call.arguments === "object" && call.arguments !== null ? call.arguments : {}) as Record<
		string,
		unknown
	>;
	const path = typeof args.path === "string" ? args.path : undefined;
	if (call.name === "read" && path) {
		const window = [
			args.offset !== undefined ? `from line ${args.offset}` : "",
			args.limit ? `${args.limit} lines` : "",
		];
		const extra = window.filter(Boolean).join(", ");
		return `read ${path}${extra ? ` (${extra})` : ""}`;
	}
	if (call.name === "write" && path && typeof args.content === "string") {
		const lines = args.content.split("\n").length - (args.content.endsWith("\n") ? 1 : 0);
		if (shownIn(ctx, path)) return `write ${path} (${lines} line(s); the file as it is now is under "The change")`;
		return `write ${path} (${lines} line(s)):\n${headAndTail(args.content, ARGS_CHARS, ARGS_CHARS / 2)}`;
	}
	if (call.name === "edit" && path) {
		// The result's diff shows the edit; the replacements are spelled out only when there is none.
		if (resultHasDiff) return `edit ${path}`;
		return `edit ${path}:\n${headAndTail(replacements(args), ARGS_CHARS, ARGS_CHARS / 2)}`;
	}
	if (call.name === "bash" && typeof args.command === "string") {
		const timeout = args.timeout !== undefined ? ` (timeout ${String(args.timeout)} s)` : "";
		return `bash${timeout}\n$ ${headAndTail(args.command, ARGS_CHARS, ARGS_CHARS / 2)}`;
	}
	return `${call.name}${argsText(args)}`;
}

/** An edit's replacements (Pi's `edits` list, or the older single oldText/newText). */
function replacements(args: Record<string, unknown>): string {
	const list = Array.isArray(args.edits) ? args.edits : [args];
	return list
		.map(
			(e: { oldText?: unknown; newText?: unknown }) =>
				`replace:\n${String(e?.oldText ?? "")}\nwith:\n${String(e?.newText ?? "")}`,
		)
		.join("\n");
}

/** Any other tool's arguments: short ones on the call's line, long or multi-line ones below it. */
function argsText(args: Record<string, unknown>): string {
	const pairs = Object.entries(args).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
	if (!pairs.length) return "";
	const line = pairs.join(", ");
	if (line.length <= 200 && !line.includes("\n")) return ` ${line}`;
	return `\n${headAndTail(pairs.join("\n"), ARGS_CHARS, ARGS_CHARS / 2)}`;
}

/** Whether a path as a tool named it (relative to the session's folder, or absolute) is shown in the change. */
function shownIn(ctx: CallContext, path: string): boolean {
	if (!ctx.shownFiles.size) return false;
	const rel = ctx.cwd && ctx.root ? relative(ctx.root, resolve(ctx.cwd, path)) : path.replace(/^\.\//, "");
	return ctx.shownFiles.has(rel.split(sep).join("/"));
}
