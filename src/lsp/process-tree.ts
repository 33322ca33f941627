// Processes of a process group, read from /proc (Linux): for the LSP status (resident
// memory) and for the tests that check nothing is left behind. Elsewhere: empty answers.
import { readdirSync, readFileSync } from "node:fs";

export interface ProcInfo {
	pid: number;
	ppid: number;
	pgid: number;
	rssKb: number;
	command: string;
	/** R, S, D, Z (zombie: exited, waiting for its parent to collect it), … */
	state: string;
}

export function listProcesses(): ProcInfo[] {
	let pids: string[];
	try {
		pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
	} catch {
		return [];
	}
	const out: ProcInfo[] = [];
	for (const pid of pids) {
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
			// Fields after the command (which is in parentheses and may contain spaces).
			const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			const status = readFileSync(`/proc/${pid}/status`, "utf8");
			const rss = /VmRSS:\s+(\d+)/.exec(status);
			out.push({
				pid: Number(pid),
				ppid: Number(rest[1]),
				pgid: Number(rest[2]),
				rssKb: rss ? Number(rss[1]) : 0,
				command: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
				state: rest[0],
			});
		} catch {
			// exited while we looked
		}
	}
	return out;
}

/** Live members of a process group (a zombie has already exited and is left out). */
export function groupMembers(pgid: number): ProcInfo[] {
	return listProcesses().filter((p) => p.pgid === pgid && p.state !== "Z");
}

/** Resident memory of a whole process group in KiB, or undefined when it cannot be read. */
export function groupRssKb(pgid: number): number | undefined {
	const members = groupMembers(pgid);
	return members.length ? members.reduce((sum, p) => sum + p.rssKb, 0) : undefined;
}

/** Waits (bounded) until no live process is left in the group; signals take effect asynchronously. */
export async function waitForGroupGone(pgid: number, ms: number): Promise<void> {
	const deadline = Date.now() + ms;
	while (Date.now() < deadline) {
		if (!groupAlive(pgid)) return;
		await new Promise((r) => setTimeout(r, 20));
	}
}

function groupAlive(pgid: number): boolean {
	const members = listProcesses();
	if (members.length) return members.some((p) => p.pgid === pgid && p.state !== "Z");
	try {
		process.kill(-pgid, 0); // no /proc: ask the kernel (zombies count as alive here)
		return true;
	} catch {
		return false;
	}
}
