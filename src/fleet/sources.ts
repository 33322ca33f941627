// Where the sessions of this machine are: Pi's session folder (the host's agent dir, or the
// shared session folder Pi is told to use), Claude Code's project logs, child runs of this agent
// dir. Listing never follows a link out of its folder nor opens anything but a regular file
// (scan's walk); what it passes over comes back with the reason.
import { readdirSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { findSessionFiles, piSessionPlace } from "../scan/index.ts";
import { readJsonIn, watchdogDir } from "./files.ts";

export interface SessionFile {
	path: string;
	/** The folder links must stay inside. */
	root: string;
	source: "pi" | "claude-code";
	/** As the listing took it: lstat of a walked file (the guarded read trusts its kind), a link's target's. */
	stats: Stats;
}

export interface Listed {
	files: SessionFile[];
	skipped: Array<{ path: string; reason: string }>;
}

export function piSessionsDir(agentDir: string, env: NodeJS.ProcessEnv): string {
	return piSessionPlace(process.cwd(), true, env, agentDir).dir;
}

/** Claude Code's folder: $CLAUDE_CONFIG_DIR, else ~/.claude. */
export function claudeDir(env: NodeJS.ProcessEnv): string {
	return env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude");
}

export function listSessionFiles(agentDir: string, env: NodeJS.ProcessEnv, claude: string | false): Listed {
	const listed: Listed = { files: [], skipped: [] };
	const pi = piSessionsDir(agentDir, env);
	collect(listed, pi, "pi", () => true);
	if (claude) {
		const projects = join(claude, "projects");
		let dirs: string[] = [];
		try {
			dirs = readdirSync(projects, { withFileTypes: true })
				.filter((d) => d.isDirectory())
				.map((d) => join(projects, d.name));
		} catch {
			// no Claude Code here
		}
		// ~/.claude/projects/<project>/<session>.jsonl: a project's own sessions, not its sub-agents' folders.
		for (const dir of dirs) collect(listed, dir, "claude-code", (path) => dirname(path) === dir);
	}
	return listed;
}

function collect(listed: Listed, dir: string, source: SessionFile["source"], keep: (path: string) => boolean): void {
	const found = findSessionFiles([dir]);
	const missing = found.skipped.length === 1 && found.skipped[0]?.path === dir;
	if (!missing) listed.skipped.push(...found.skipped.filter((s) => keep(s.path)));
	for (const path of found.files) {
		if (!path.endsWith(".jsonl") || !keep(path)) continue;
		try {
			listed.files.push({ path, root: dir, source, stats: found.stats.get(path) ?? statSync(path) });
		} catch (error) {
			listed.skipped.push({ path, reason: `gone during the pass (${(error as NodeJS.ErrnoException).code})` });
		}
	}
}

export interface RunInfo {
	id: string;
	state: string;
	pid?: number;
	startedAt?: string;
	updatedAt?: string;
	agents: string;
	error?: string;
}

/** Child runs under <agentDir>/watchdog/runs/, from their status files. */
export function listRuns(agentDir: string): RunInfo[] {
	const dir = join(watchdogDir(agentDir), "runs");
	let ids: string[];
	try {
		ids = readdirSync(dir).filter((n) => /^[\w-]{1,80}$/.test(n));
	} catch {
		return [];
	}
	const out: RunInfo[] = [];
	for (const id of ids) {
		const status = readJsonIn(join(dir, id, "status.json"), dir, 1 << 20);
		if (!status || typeof status.state !== "string") continue;
		const children = Array.isArray(status.children) ? status.children : [];
		const agents = children
			.map((c) => (c && typeof c === "object" ? String((c as { agent?: unknown }).agent ?? "") : ""))
			.filter(Boolean)
			.join(", ");
		out.push({
			id: basename(id),
			state: status.state,
			...(typeof status.pid === "number" ? { pid: status.pid } : {}),
			...(typeof status.startedAt === "string" ? { startedAt: status.startedAt } : {}),
			...(typeof status.updatedAt === "string" ? { updatedAt: status.updatedAt } : {}),
			agents,
			...(typeof status.error === "string" ? { error: status.error } : {}),
		});
	}
	return out;
}
