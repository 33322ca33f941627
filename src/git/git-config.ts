// The few git settings the gate needs to decide ignored paths in-process (core.excludesFile,
// core.ignoreCase, the object format), read from git's own config files without starting git.
// Anything this reader cannot follow for certain (include directives, settings passed through
// the environment, a value it cannot parse) makes the answer "unknown", and the caller asks git.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { readFileInRoot } from "../util/index.ts";
import type { RepoLocation } from "./repo.ts";

const CONFIG_BYTES = 1024 * 1024;

export interface GitSettings {
	/** The global excludes file, or null when none applies. */
	excludesFile: string | null;
	ignoreCase: boolean;
	/** Bytes of one object id in the index (20 for SHA-1, 32 for SHA-256). */
	hashBytes: number;
}

/** The settings in effect for `repo`, or undefined when they cannot be known without git. */
export function readGitSettings(repo: RepoLocation, env: NodeJS.ProcessEnv = process.env): GitSettings | undefined {
	if (env.GIT_CONFIG_PARAMETERS || env.GIT_CONFIG_COUNT || env.GIT_CONFIG) return undefined;
	const home = env.HOME || homedir();
	const xdg = env.XDG_CONFIG_HOME || (home ? join(home, ".config") : "");
	const files: string[] = [];
	if (!env.GIT_CONFIG_NOSYSTEM) files.push(env.GIT_CONFIG_SYSTEM || "/etc/gitconfig");
	if (env.GIT_CONFIG_GLOBAL) files.push(env.GIT_CONFIG_GLOBAL);
	else {
		if (xdg) files.push(join(xdg, "git", "config"));
		if (home) files.push(join(home, ".gitconfig"));
	}
	files.push(join(repo.commonDir, "config"), join(repo.gitDir, "config.worktree"));
	const values = new Map<string, string>();
	for (const file of files) {
		if (!existsSync(file)) continue;
		// Any location: only what the file is (a regular file, bounded) matters, not where a link leads.
		const read = readFileInRoot(file, { root: "/", maxBytes: CONFIG_BYTES, overLimit: "refuse" });
		if (read.state === "missing") continue;
		if (read.state !== "ok" || !parseInto(read.text, values)) return undefined;
	}
	const ignoreCase = bool(values.get("core.ignorecase") ?? "false");
	if (ignoreCase === undefined) return undefined;
	const format = (values.get("extensions.objectformat") ?? "sha1").toLowerCase();
	if (format !== "sha1" && format !== "sha256") return undefined;
	let excludesFile: string | null;
	const configured = values.get("core.excludesfile");
	if (configured === undefined) excludesFile = xdg ? join(xdg, "git", "ignore") : null;
	else if (configured.startsWith("~/") && home) excludesFile = join(home, configured.slice(2));
	else if (isAbsolute(configured)) excludesFile = configured;
	else return undefined; // relative or "%(prefix)": resolved by git in ways not worth copying
	return { excludesFile, ignoreCase, hashBytes: format === "sha256" ? 32 : 20 };
}

const WANTED = new Set(["core.excludesfile", "core.ignorecase", "extensions.objectformat"]);

/** Adds the wanted keys (later files and lines win); false when the text holds what is not followed here. */
function parseInto(text: string, values: Map<string, string>): boolean {
	let section = "";
	for (const raw of text.split("\n")) {
		let line = raw.trim();
		if (!line || line.startsWith("#") || line.startsWith(";")) continue;
		if (line.startsWith("[")) {
			const m = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]\s*(.*)$/.exec(line);
			if (!m) return false;
			section = m[1].toLowerCase();
			if (section === "include" || section === "includeif") return false;
			line = m[2].trim(); // a key may follow the header on the same line
			if (!line || line.startsWith("#") || line.startsWith(";")) continue;
		}
		const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
		if (!kv) return false;
		const key = `${section}.${kv[1].toLowerCase()}`;
		if (!WANTED.has(key)) continue;
		const value = kv[2] === undefined ? "true" : parseValue(kv[2]);
		if (value === undefined) return false;
		values.set(key, value);
	}
	return true;
}

/** A config value: quotes removed, escapes applied, a trailing comment dropped; undefined for a continued line. */
function parseValue(raw: string): string | undefined {
	let out = "";
	let quoted = false;
	for (let i = 0; i < raw.length; i++) {
		const c = raw[i];
		if (c === "\\") {
			const next = raw[++i];
			if (next === undefined) return undefined;
			const esc: Record<string, string> = { n: "\n", t: "\t", b: "\b", "\\": "\\", '"': '"' };
			if (!(next in esc)) return undefined;
			out += esc[next];
		} else if (c === '"') quoted = !quoted;
		else if (!quoted && (c === "#" || c === ";")) break;
		else out += c;
	}
	return quoted ? undefined : out.trim();
}

function bool(value: string): boolean | undefined {
	const v = value.toLowerCase();
	if (["true", "yes", "on", "1"].includes(v)) return true;
	if (["false", "no", "off", "0", ""].includes(v)) return false;
	return undefined;
}
