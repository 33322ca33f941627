// Reading settings files, cached on their stat so that asking for settings on every event
// costs one stat per file, not a read and a parse. Read through safe-file: a settings file
// swapped for a FIFO, a device or a link out of its folder is an error, never a hang.
import { createRequire } from "node:module";
import type { ParseError } from "jsonc-parser";
import { fileToken, readFileInRoot, stripBom } from "../util/index.ts";

// Only a file that does not parse needs jsonc-parser (for the error's position): loaded then, not at every start.
let jsoncModule: typeof import("jsonc-parser") | undefined;
const jsonc = () => (jsoncModule ??= createRequire(import.meta.url)("jsonc-parser") as typeof import("jsonc-parser"));

/** Far above any real settings file; a larger one is refused rather than read. */
export const SETTINGS_MAX_BYTES = 2 * 1024 * 1024;

export type FileRead =
	| { state: "missing" }
	/** `sha256` of the bytes read; absent on a version the watchdog made from the user's own write (file-watch.ts). */
	| { state: "ok"; document: unknown; sha256?: string }
	/** `sha256` when the file was read (and did not parse). */
	| { state: "error"; message: string; sha256?: string };

interface CacheEntry {
	token: string;
	read: FileRead;
}

export class SettingsFileCache {
	private entries = new Map<string, CacheEntry>();

	/**
	 * Returns the parsed file and a token that changes whenever the file does. `root` is the
	 * folder its links may lead into.
	 */
	read(path: string, root: string): { read: FileRead; token: string } {
		const token = fileToken(path);
		const cached = this.entries.get(path);
		if (cached && cached.token === token) return { read: cached.read, token };
		const read = token === "missing" ? ({ state: "missing" } as const) : readSettingsFile(path, root);
		this.entries.set(path, { token, read });
		return { read, token };
	}
}

export function readSettingsFile(path: string, root: string): FileRead {
	const file = readFileInRoot(path, { root, maxBytes: SETTINGS_MAX_BYTES, overLimit: "refuse" });
	if (file.state === "missing") return file;
	if (file.state === "refused") return { state: "error", message: `cannot read settings: ${file.reason}` };
	const text = file.text;
	const parsed = parseJson(text);
	if (!parsed.ok) return { state: "error", message: `${path}: ${parsed.error}`, sha256: file.sha256 };
	return { state: "ok", document: parsed.value, sha256: file.sha256 };
}

/**
 * JSON.parse (what Pi itself uses), with an error that names the line and column. V8's
 * messages do not always carry a position, so the position comes from jsonc-parser's scanner.
 */
export function parseJson(raw: string): { ok: true; value: unknown } | { ok: false; error: string } {
	const text = stripBom(raw); // Pi accepts a leading byte-order mark, so we do too
	if (text.trim() === "") return { ok: false, error: "the file is empty; it must hold a JSON object (at least {})" };
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch (error) {
		const reason = (error as Error).message
			.replace(/\s*in JSON at position \d+.*$/s, "")
			.replace(/, (?:\.\.\.)?"[\s\S]*" is not valid JSON$/, "");
		const problems: ParseError[] = [];
		const { parse: parseTolerant, printParseErrorCode } = jsonc();
		parseTolerant(text, problems, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
		const first = problems[0];
		if (!first) return { ok: false, error: `invalid JSON: ${reason}` };
		const { line, column } = lineColumn(text, first.offset);
		return {
			ok: false,
			error:
				`invalid JSON at line ${line}, column ${column}: ` +
				`${describeCode(printParseErrorCode(first.error))} (${reason})`,
		};
	}
}

function describeCode(code: string): string {
	return code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
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
