// Reading settings files, cached on their stat so that asking for settings on every event
// costs one stat per file, not a read and a parse.
import { readFileSync, statSync } from "node:fs";

export type FileRead =
	| { state: "missing" }
	| { state: "ok"; document: unknown }
	| { state: "error"; message: string };

interface CacheEntry {
	token: string;
	read: FileRead;
}

export class SettingsFileCache {
	private entries = new Map<string, CacheEntry>();

	/** Returns the parsed file and a token that changes whenever the file does. */
	read(path: string): { read: FileRead; token: string } {
		const token = statToken(path);
		const cached = this.entries.get(path);
		if (cached && cached.token === token) return { read: cached.read, token };
		const read = token === "missing" ? ({ state: "missing" } as const) : readSettingsFile(path);
		this.entries.set(path, { token, read });
		return { read, token };
	}
}

function statToken(path: string): string {
	try {
		const s = statSync(path);
		return `${s.ino}:${s.size}:${s.mtimeMs}:${s.isDirectory() ? "d" : "f"}`;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		return code === "ENOENT" || code === "ENOTDIR" ? "missing" : `stat-error:${code}`;
	}
}

export function readSettingsFile(path: string): FileRead {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch (error) {
		const e = error as NodeJS.ErrnoException;
		if (e.code === "ENOENT") return { state: "missing" };
		return { state: "error", message: `cannot read ${path}: ${e.code === "EISDIR" ? "it is a directory" : e.message}` };
	}
	const parsed = parseJson(text);
	if (!parsed.ok) return { state: "error", message: `${path}: ${parsed.error}` };
	return { state: "ok", document: parsed.value };
}

/** JSON.parse with an error that names the line and column. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
	if (text.trim() === "") return { ok: false, error: "the file is empty; it must hold a JSON object (at least {})" };
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch (error) {
		const message = (error as Error).message;
		const match = /position (\d+)/.exec(message);
		const offset = match ? Number(match[1]) : /end of JSON input/.test(message) ? text.length : undefined;
		const reason = message.replace(/\s*in JSON at position \d+.*$/s, "").replace(/\s*\(line \d+ column \d+\)/, "");
		if (offset === undefined) return { ok: false, error: `invalid JSON: ${reason}` };
		const { line, column } = lineColumn(text, offset);
		return { ok: false, error: `invalid JSON at line ${line}, column ${column}: ${reason}` };
	}
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
	let line = 1;
	let lineStart = 0;
	for (let i = 0; i < offset && i < text.length; i++) {
		if (text.charCodeAt(i) === 10) {
			line++;
			lineStart = i + 1;
		}
	}
	return { line, column: offset - lineStart + 1 };
}
