// Scanning a file with scan's line shortcuts and with every line parsed in full, and damaging a copy of a
// session as a crash or a bad writer would: what test/unit/scan/line-shortcuts.test.ts and the
// dev-equivalence bench compare.
import { detectFormat } from "../../src/scan/read-session.ts";
import { scanSession } from "../../src/scan/scan-session.ts";
import { lineShortcuts } from "../../src/scan/session-parser.ts";
import { readAll } from "./session-files.ts";

export async function bothWays(path: string) {
	lineShortcuts.enabled = true;
	const fast = { report: await scanSession(path), events: (await readAll(path)).events };
	lineShortcuts.enabled = false;
	const full = { report: await scanSession(path), events: (await readAll(path)).events };
	lineShortcuts.enabled = true;
	return { fast, full };
}

/**
 * A copy with some lines broken as a crash or a bad writer breaks them: cut short (often inside
 * a long text, where the shortcuts look), a bad escape or a raw control character put in, a
 * duplicated text's copy changed by one character. The first lines (which tell the format) and
 * the noise lines the readers skip unread are left alone: those are not checked at all with the
 * shortcuts (test/unit/scan/line-shortcuts.test.ts has a test of them).
 */
export function damage(text: string, rand: () => number): string {
	const lines = text.split("\n");
	const format = detectFormat(lines.slice(0, 40));
	return lines
		.map((line, i) => {
			if (i < 3 || line.length < 20 || rand() > 0.08 || noise(line, format)) return line;
			const at = textAt(line, rand);
			const w = rand();
			if (w < 0.35) return line.slice(0, at);
			if (w < 0.55) return `${line.slice(0, at)}\\x${line.slice(at)}`;
			if (w < 0.7) return `${line.slice(0, at)}\u0001${line.slice(at)}`;
			if (w < 0.85) return `${line.slice(0, at)}"${line.slice(at)}`;
			// One character of a long string changed: the copies of a text no longer agree.
			return `${line.slice(0, at)}${line[at] === "a" ? "b" : "a"}${line.slice(at + 1)}`;
		})
		.join("\n");
}

/** A line of a type no reader looks inside, told from its parsed value. */
function noise(line: string, format: string | undefined): boolean {
	let value: Record<string, unknown>;
	try {
		value = JSON.parse(line);
	} catch {
		return false;
	}
	if (format === "pi-subagents") return value.recordType !== "message";
	if (format === "pi") return value.type !== "message" && value.type !== "compaction";
	if (format === "claude-code") return ["progress", "file-history-snapshot", "summary"].includes(String(value.type));
	return false;
}

/** A place in the line, most often inside one of its `text` strings. */
function textAt(line: string, rand: () => number): number {
	const keys: number[] = [];
	for (let k = line.indexOf('"text":"'); k !== -1 && keys.length < 4; k = line.indexOf('"text":"', k + 1))
		keys.push(k + 8);
	if (keys.length && rand() < 0.8) {
		const from = keys[Math.floor(rand() * keys.length)];
		return Math.min(line.length - 1, from + Math.floor(rand() * Math.min(4000, line.length - from)));
	}
	return 1 + Math.floor(rand() * (line.length - 1));
}
