// Where Pi keeps its session files, worked out the way Pi 1.6 does it (config.js `getAgentDir`,
// session-manager.js `getDefaultSessionDirPath`), so the CLI does not load the host package:
// - the agent folder is $PI_CODING_AGENT_DIR, else ~/.pi/agent;
// - a project's sessions are in <agent>/sessions/--<cwd with / \ : turned into ->--/;
// - $PI_CODING_AGENT_SESSION_DIR (or `sessionDir` in the agent's settings.json) puts every
//   project's sessions in one folder instead; a session's header then names its cwd.
// A test compares these paths with Pi's own SessionManager.
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { readFileInRoot, userRoot } from "../util/index.ts";

export interface PiSessionPlace {
	/** The folder to walk. */
	dir: string;
	/** When set, only Pi sessions whose header names this cwd count (a shared session folder). */
	cwd?: string;
}

export function agentDir(env: NodeJS.ProcessEnv = process.env): string {
	const dir = env.PI_CODING_AGENT_DIR;
	return dir ? expandHome(dir) : join(homedir(), ".pi", "agent");
}

/** The folder of one project's sessions when no shared session folder is configured. */
export function projectSessionDir(cwd: string, agent = agentDir()): string {
	const safe = `--${resolve(cwd)
		.replace(/^[/\\]/, "")
		.replace(/[/\\:]/g, "-")}--`;
	return join(resolve(agent), "sessions", safe);
}

/** Where the sessions of `cwd` are (or, with `all`, every project's). */
export function piSessionPlace(
	cwd: string,
	all: boolean,
	env: NodeJS.ProcessEnv = process.env,
	agent = agentDir(env),
): PiSessionPlace {
	const shared = sharedSessionDir(agent, env);
	if (shared) return all ? { dir: shared } : { dir: shared, cwd: resolve(cwd) };
	return { dir: all ? join(resolve(agent), "sessions") : projectSessionDir(cwd, agent) };
}

/** The cwd a Pi session file's header names, or undefined when its first line is not one. */
export function sessionHeaderCwd(path: string, root: string): string | undefined {
	const read = readFileInRoot(path, { root, maxBytes: 64 * 1024, overLimit: "truncate" });
	if (read.state !== "ok") return undefined;
	try {
		const header = JSON.parse(read.text.split("\n", 1)[0] ?? "") as { type?: unknown; cwd?: unknown };
		return header.type === "session" && typeof header.cwd === "string" ? resolve(header.cwd) : undefined;
	} catch {
		return undefined;
	}
}

function sharedSessionDir(agent: string, env: NodeJS.ProcessEnv): string | undefined {
	const fromEnv = env.PI_CODING_AGENT_SESSION_DIR;
	if (fromEnv) return resolve(expandHome(fromEnv));
	const read = readFileInRoot(join(agent, "settings.json"), {
		root: userRoot(agent),
		maxBytes: 1 << 20,
		overLimit: "refuse",
	});
	if (read.state !== "ok") return undefined;
	try {
		const value = (JSON.parse(read.text) as { sessionDir?: unknown }).sessionDir;
		return typeof value === "string" && value ? resolve(expandHome(value)) : undefined;
	} catch {
		return undefined;
	}
}

function expandHome(path: string): string {
	if (path === "~") return homedir();
	return path.startsWith("~/") ? join(homedir(), path.slice(2)) : path;
}
