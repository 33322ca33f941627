// Making calls comparable: bash commands without their noise (env-var and cd prefixes,
// comments, line continuations), arguments in a canonical order, and short stable hashes.
// Pure.
import { hash } from "node:crypto";
import type { ToolCallRecord } from "../transcript/index.ts";
import { clip, memoPerCommand } from "../util/index.ts";

/**
 * The last command normalised and its result: one call's command is normalised by the
 * signature, target, subjects, label and the evidence facts in turn, and this is the hot path
 * of a scan.
 */
let lastCommand: string | undefined;
let lastNormalized = "";

/** `FOO=1 cd src && npm test  # again` → `npm test` */
export function normalizeCommand(command: string): string {
	if (command === lastCommand) return lastNormalized;
	const normalized = normalizeUncached(command);
	lastCommand = command;
	lastNormalized = normalized;
	return normalized;
}

function normalizeUncached(command: string): string {
	let c = command.replace(/\\\r?\n/g, " ");
	c = c
		.split("\n")
		.map((line) => line.replace(/(^|\s)#.*$/, "$1"))
		.join(" ; ");
	c = c.replace(/\s+/g, " ").trim();
	for (;;) {
		const before = c;
		c = c.replace(/^(export\s+)?[A-Za-z_][A-Za-z0-9_]*=("[^"]*"|'[^']*'|\S*)\s+/, "");
		c = c.replace(/^cd\s+("[^"]*"|'[^']*'|\S+)\s*(&&|;)\s*/, "");
		c = c.replace(/^(;\s*)+/, "");
		if (c === before) break;
	}
	return c.replace(/(\s*;\s*)+$/, "");
}

/** The first two words of a normalised command: `git diff HEAD~1 -- a.ts` → `git diff`. */
export function commandHead(command: string): string {
	return normalizeCommand(command).split(" ").slice(0, 2).join(" ");
}

/** A short hash; 12 base64 characters are plenty to tell calls apart in one session. */
export function shortHash(text: string): string {
	return hash("sha1", text, "base64").slice(0, 12);
}

/** JSON with sorted keys, so `{a,b}` and `{b,a}` are the same call. */
export function canonical(value: unknown): string {
	if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
	if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
	const obj = value as Record<string, unknown>;
	return `{${Object.keys(obj)
		.sort()
		.filter((k) => obj[k] !== undefined)
		.map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
		.join(",")}}`;
}

/** What makes two calls the same call (not their results). */
export function callSignature(call: ToolCallRecord): string {
	if (call.kind === "bash" && call.command !== undefined) return `bash ${normalizeCommand(call.command)}`;
	return `${call.name.toLowerCase()} ${canonical(call.args)}`;
}

/**
 * The target a call works on: a file for reads, a command head for bash, a pattern for searches.
 * `signature`: the call's callSignature when the caller has it already (the detector's hot path).
 */
export function targetOf(call: ToolCallRecord, signature?: string): string {
	switch (call.kind) {
		case "read":
		case "edit":
		case "write":
			return call.path ? `${call.kind} ${call.path}` : `${call.kind} ?`;
		case "bash":
			return `bash ${commandHead(call.command ?? "")}`;
		case "search":
			return `${call.name.toLowerCase()} ${(call.pattern ?? canonical(call.args)).slice(0, 60)}`;
		default:
			return (signature ?? callSignature(call)).slice(0, 120);
	}
}

/** A short readable description of a call for evidence lines. */
export function describeCall(call: ToolCallRecord): string {
	const what =
		call.kind === "bash"
			? `bash \`${clip(normalizeCommand(call.command ?? ""), 80)}\``
			: call.path
				? `${call.name} ${call.path}`
				: call.pattern
					? `${call.name} "${clip(call.pattern, 60)}"`
					: `${call.name} ${clip(canonical(call.args), 80)}`;
	return what;
}

/** Did this call land something (change a file, or commit)? */
export function landed(call: ToolCallRecord): boolean {
	if (call.isError) return false;
	if (call.kind === "edit" || call.kind === "write") return call.changed !== false;
	if (call.kind === "bash" && call.command)
		return (
			/\bgit\s+(-C\s+\S+\s+)?commit\b/.test(call.command) &&
			!/nothing to commit|no changes added to commit/i.test(call.result)
		);
	return false;
}

const DATE_TIME = /\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/g;
const CLOCK_TIME = /\b\d\d:\d\d:\d\d(?:\.\d+)?\b/g;
const DURATION = /\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds)\b/g;
/**
 * Whether one of the three may occur: each holds a digit followed by a colon and a digit (the
 * date and the clock) or by a unit's first letter, after at most one space (the duration). A
 * text where this finds nothing is not rewritten; where it finds a near miss, the rewrites change
 * nothing. One class-led pattern costs less than the three alternatives with their boundaries.
 */
const MAY_HOLD_TIME = /\d(?::\d|\s?[ms])/;

/**
 * A result as the detectors compare it: timestamps and durations vary between two answers that
 * say the same thing; an empty answer in any spelling is one answer.
 */
export function outcomeText(result: string, isError: boolean): string {
	// This runs on every call's result, and most hold no time: one pass tells, and only a text
	// where one may be is rewritten (in the same order). Both time patterns need a colon, the
	// date one a dash too.
	let text = result;
	if (MAY_HOLD_TIME.test(result)) {
		const colon = result.includes(":");
		if (colon && result.includes("-")) text = text.replace(DATE_TIME, "<time>");
		if (colon) text = text.replace(CLOCK_TIME, "<time>");
		text = text.replace(DURATION, "<duration>");
	}
	text = text.trim();
	const empty = text === "" || /^\(?no output\)?\.?$/i.test(text);
	return `${isError ? "E" : ""}${empty ? "<empty>" : text}`;
}

/** What a call is about, for deciding whether it told the agent anything new (`signature`: as in targetOf). */
export function subjectsOf(call: ToolCallRecord, signature?: string): readonly string[] {
	if (call.kind === "bash" && call.command) return commandSubjects(call.command);
	if (call.path) return [`file:${call.path.replace(/^.*\//, "")}`];
	return [`call:${signature ?? callSignature(call)}`];
}

/** A command's subjects: the files it names, else the command itself (worked out once per command). */
const commandSubjects = memoPerCommand((command): readonly string[] => {
	const files = new Set<string>();
	for (const raw of normalizeCommand(command).split(/[\s|;&<>()]+/)) {
		const token = raw.replace(/^['"]|['"]$/g, "");
		// Skip flags, URLs and revision ranges (v1..v2); keep what looks like a file name.
		if (!token || token.startsWith("-") || token.includes("..") || /^[a-z]+:\/\//i.test(token)) continue;
		if (/[^./]\.[A-Za-z][A-Za-z0-9]{0,5}$/.test(token)) files.add(`file:${token.replace(/^.*[/:]/, "")}`);
	}
	return files.size ? [...files] : [`cmd:${normalizeCommand(command)}`];
});
