// Reaching a session that is not live through the tmux pane it runs in: the agent's process is
// found by its working folder and program among this machine's processes (Linux /proc), its
// pane by walking up its parents to a pane's shell (`tmux list-panes -a`). Exactly one pane, or
// none: two candidates are ambiguous and nothing is typed. tmux's exit code confirms the typing.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { resolve } from "node:path";
import { oneLine } from "../util/index.ts";

const TMUX_TIMEOUT_MS = 5000;

interface Proc {
	pid: number;
	ppid: number;
	cwd?: string;
	args: string;
}

function processes(): Proc[] {
	let names: string[];
	try {
		names = readdirSync("/proc").filter((n) => /^\d+$/.test(n));
	} catch {
		return [];
	}
	const out: Proc[] = [];
	for (const name of names) {
		try {
			const stat = readFileSync(`/proc/${name}/stat`, "utf8");
			const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
			const args = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0+$/, "").replace(/\0/g, " ");
			let cwd: string | undefined;
			try {
				cwd = readlinkSync(`/proc/${name}/cwd`);
			} catch {
				cwd = undefined; // another user's process
			}
			out.push({ pid: Number(name), ppid, ...(cwd ? { cwd } : {}), args });
		} catch {
			// the process ended meanwhile
		}
	}
	return out;
}

function tmux(args: string[], env: NodeJS.ProcessEnv): { ok: boolean; stdout: string; error?: string } {
	const ran = spawnSync("tmux", args, { env, encoding: "utf8", timeout: TMUX_TIMEOUT_MS, stdio: "pipe" });
	if (ran.error) return { ok: false, stdout: "", error: ran.error.message };
	return { ok: ran.status === 0, stdout: ran.stdout ?? "", error: (ran.stderr ?? "").trim() || undefined };
}

const AGENT_ARGS: Record<string, RegExp> = {
	pi: /(?:^|[/\s])pi(?:\s|$)|pi-coding-agent/,
	"claude-code": /(?:^|[/\s])claude(?:\s|$)/,
};

export type PaneLookup = { pane: string } | { none: string };

/** The one tmux pane where an agent of this kind runs in `cwd` (or where process `pid` runs). */
export function findPane(
	target: { agent: string; cwd?: string; pid?: number },
	env: NodeJS.ProcessEnv = process.env,
): PaneLookup {
	const listed = tmux(["list-panes", "-a", "-F", "#{pane_id} #{pane_pid}"], env);
	if (!listed.ok) return { none: "no tmux server is running here" };
	const panes = new Map<number, string>();
	for (const line of listed.stdout.split("\n")) {
		const [id, pid] = line.trim().split(" ");
		if (id && pid) panes.set(Number(pid), id);
	}
	const procs = processes();
	const byPid = new Map(procs.map((p) => [p.pid, p]));
	const pattern = AGENT_ARGS[target.agent];
	const want = target.cwd ? resolve(target.cwd) : undefined;
	const agents =
		target.pid !== undefined
			? procs.filter((p) => p.pid === target.pid)
			: procs.filter((p) => pattern?.test(p.args) && want !== undefined && p.cwd === want);
	const found = new Set<string>();
	for (const agent of agents) {
		let at: Proc | undefined = agent;
		for (let hops = 0; at && hops < 64; hops++) {
			const pane = panes.get(at.pid);
			if (pane) {
				found.add(pane);
				break;
			}
			at = byPid.get(at.ppid);
		}
	}
	if (found.size === 1) return { pane: [...found][0] as string };
	if (found.size > 1) return { none: `${found.size} tmux panes run such an agent in that folder; not guessing` };
	return { none: "no tmux pane runs this session's agent" };
}

/** Types one line into the pane and presses Enter; ok when tmux says both went in. */
export function typeIntoPane(
	pane: string,
	text: string,
	env: NodeJS.ProcessEnv = process.env,
): { ok: boolean; error?: string } {
	const typed = tmux(["send-keys", "-t", pane, "-l", oneLine(text)], env);
	if (!typed.ok) return { ok: false, error: typed.error ?? "tmux send-keys failed" };
	const entered = tmux(["send-keys", "-t", pane, "Enter"], env);
	return entered.ok ? { ok: true } : { ok: false, error: entered.error ?? "tmux send-keys Enter failed" };
}
