// `pi-watchdog doctor`: what an installation needs, each checked from the shell, each with what
// to do when it does not hold. Every outside program runs under a deadline; nothing is written
// but the history log opened for appending (which creates it, as the first review would).
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { PACKAGE_DIR } from "../util/index.ts";

export interface Check {
	name: string;
	ok: boolean;
	detail: string;
}

export const MIN_NODE = [22, 19] as const;
const PROGRAM_MS = 15_000;

export interface DoctorEnv {
	cwd: string;
	env: NodeJS.ProcessEnv;
	nodeVersion: string;
}

/** Pi's agent folder, as Pi finds it ($PI_CODING_AGENT_DIR, else ~/.pi/agent). */
export function agentDirOf(env: NodeJS.ProcessEnv): string {
	const dir = env.PI_CODING_AGENT_DIR;
	if (!dir) return join(homedir(), ".pi", "agent");
	return dir === "~" || dir.startsWith("~/") ? join(homedir(), dir.slice(1)) : resolve(dir);
}

export function nodeCheck(version: string): Check {
	const [major = 0, minor = 0] = version.split(".").map(Number);
	const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
	const need = `${MIN_NODE.join(".")} or newer`;
	return { name: "Node.js", ok, detail: ok ? `${version}` : `${version}: Pi 1.6 needs ${need}; install it and retry` };
}

/** Runs a program with a deadline; the output, or why it could not run. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
	const result = spawnSync(command, args, { env, cwd, encoding: "utf8", timeout: PROGRAM_MS, killSignal: "SIGKILL" });
	if (result.error) {
		const code = (result.error as NodeJS.ErrnoException).code;
		return { ok: false, text: code === "ENOENT" ? "not found on PATH" : result.error.message };
	}
	const text = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
	return { ok: result.status === 0, text: text || `exit ${result.status}` };
}

export function piCheck(env: NodeJS.ProcessEnv): Check {
	const pi = run("pi", ["--version"], env);
	const version = pi.text.split("\n")[0] ?? "";
	if (!pi.ok)
		return {
			name: "Pi",
			ok: false,
			detail: `pi --version: ${version}; npm install -g @earendil-works/pi-coding-agent`,
		};
	const ok = /^1\.6\./.test(version) || /\b1\.6\.\d+/.test(version);
	return { name: "Pi", ok, detail: ok ? version : `${version}: this package is made for Pi 1.6` };
}

/** A settings file read as Pi reads it: absent is fine; malformed names the line and column. */
export function readSettings(path: string, parse: (raw: string) => { ok: boolean; value?: unknown; error?: string }) {
	if (!existsSync(path)) return { exists: false as const };
	const parsed = parse(readFileSync(path, "utf8"));
	return parsed.ok
		? { exists: true as const, value: parsed.value }
		: { exists: true as const, error: parsed.error ?? "" };
}

/** Whether one of Pi's `packages` entries is this package (a path to it, or a source naming it). */
export function listsPackage(packages: unknown, base: string, dir = PACKAGE_DIR): boolean {
	if (!Array.isArray(packages)) return false;
	const here = safeReal(dir);
	return packages.some((entry) => {
		const source = typeof entry === "string" ? entry : (entry as { source?: unknown } | null)?.source;
		if (typeof source !== "string") return false;
		if (/pi-watchdog/.test(source) && !source.startsWith(".") && !isAbsolute(source)) return true;
		const path = source.startsWith("~/") ? join(homedir(), source.slice(2)) : resolve(base, source);
		return safeReal(path) === here;
	});
}

function safeReal(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

export function historyCheck(dir: string): Check {
	const file = join(dir, "history.jsonl");
	try {
		mkdirSync(dir, { recursive: true });
		closeSync(openSync(file, "a"));
		return { name: "History log", ok: true, detail: `${file} is writable` };
	} catch (error) {
		return { name: "History log", ok: false, detail: `${file}: ${(error as Error).message}` };
	}
}

export function gitCheck(env: NodeJS.ProcessEnv): Check {
	const git = run("git", ["--version"], env);
	return { name: "git", ok: git.ok, detail: git.ok ? git.text : `git --version: ${git.text}; install git` };
}

/** The bundled language server answers `--version` on this Node. */
export function serverCheck(cli: string | undefined, tsserver: string | undefined, env: NodeJS.ProcessEnv): Check {
	const name = "Language server";
	if (!cli) return { name, ok: false, detail: "typescript-language-server is missing: run npm install in the package" };
	if (!tsserver) return { name, ok: false, detail: "TypeScript is missing: run npm install in the package" };
	const server = run(process.execPath, [cli, "--version"], env);
	return { name, ok: server.ok, detail: server.ok ? `typescript-language-server ${server.text}` : server.text };
}

export function formatChecks(checks: Check[]): string {
	const width = Math.max(...checks.map((c) => c.name.length));
	const lines = checks.map((c) => `${c.ok ? "ok  " : "FAIL"}  ${c.name.padEnd(width)}  ${c.detail}`);
	const failed = checks.filter((c) => !c.ok).length;
	lines.push("", failed ? `${failed} of ${checks.length} checks failed.` : `All ${checks.length} checks passed.`);
	return lines.join("\n");
}
