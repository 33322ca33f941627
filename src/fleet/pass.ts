// One pass over every session on the machine: list them, read each fresh one's tail, classify
// it. Dormant files are judged by their time alone (never opened), so a folder of 10,000 old
// sessions costs a stat each. Bad files are passed over with the reason; the pass always ends.
import { basename, resolve } from "node:path";
import { clip, oneLine, realRoot } from "../util/index.ts";
import { ageText, classifyTail, liveWaitReason } from "./classify.ts";
import { processAlive } from "./files.ts";
import { type LiveEntry, listLive, liveWait } from "./live.ts";
import { claudeDir, listRuns, listSessionFiles, type RunInfo, type SessionFile } from "./sources.ts";
import { agentOf, readTail, TAIL_BYTES } from "./tail.ts";
import type { FleetPass, FleetRow, FleetTimes } from "./types.ts";

export interface PassOptions {
	agentDir: string;
	env?: NodeJS.ProcessEnv;
	/** Claude Code's folder; false: leave Claude Code out. */
	claudeDir?: string | false;
	times: FleetTimes;
	now?: number;
	tailBytes?: number;
}

export function runPass(options: PassOptions): FleetPass {
	const now = options.now ?? Date.now();
	const env = options.env ?? process.env;
	const live = listLive(options.agentDir);
	const byFile = new Map(live.filter((l) => l.file).map((l) => [resolve(l.file as string), l]));
	const listed = listSessionFiles(
		options.agentDir,
		env,
		options.claudeDir === undefined ? claudeDir(env) : options.claudeDir,
	);
	const sessions: FleetRow[] = [];
	const skipped = [...listed.skipped];
	const seen = new Set<LiveEntry>();
	// Each sessions folder's real path, resolved once for the pass rather than once per file read.
	const roots = new Map<string, string>();
	const rootOf = (root: string) => roots.get(root) ?? roots.set(root, realRoot(root)).get(root) ?? root;
	for (const file of listed.files) {
		const entry = byFile.size ? byFile.get(resolve(file.path)) : undefined;
		if (entry) seen.add(entry);
		const row = fileRow(file, entry, now, options, rootOf);
		if ("skip" in row) skipped.push({ path: file.path, reason: row.skip });
		else sessions.push(row);
	}
	for (const entry of live) if (!seen.has(entry)) sessions.push(liveOnlyRow(entry, now, options.times));
	for (const run of listRuns(options.agentDir)) sessions.push(runRow(run, now, options.times));
	return { at: new Date(now).toISOString(), sessions, skipped };
}

function fileRow(
	file: SessionFile,
	entry: LiveEntry | undefined,
	now: number,
	options: PassOptions,
	rootOf: (root: string) => string,
): FleetRow | { skip: string } {
	const lastActivityMs = Math.max(file.stats.mtimeMs, entry?.activityAt ?? 0);
	const agent = file.source === "pi" ? "pi" : "claude-code";
	const base = {
		source: file.source,
		file: file.path,
		agent,
		lastActivityAt: new Date(lastActivityMs).toISOString(),
		...(entry ? { live: liveInfo(entry) } : {}),
	};
	const age = now - lastActivityMs;
	if (!entry && age >= options.times.dormantMs)
		return {
			...base,
			id: idFromName(file.path),
			state: "dormant",
			reason: `no activity for ${ageText(age)}`,
			attention: false,
		};
	const place = { root: file.root, realRoot: rootOf(file.root), listed: file.stats };
	const tail = readTail(file.path, place, options.tailBytes ?? TAIL_BYTES);
	if (!tail.ok) return { skip: tail.reason };
	const read = tail.read;
	const waiting = entry && liveWait(entry);
	const c = classifyTail({
		events: read.events,
		...(read.firstPrompt ? { firstPrompt: read.firstPrompt } : {}),
		lastActivityMs,
		now,
		times: options.times,
		...(entry ? { busy: entry.busy } : {}),
		...(waiting ? { waiting } : {}),
		cut: read.cut,
	});
	const label = read.name ?? (read.firstPrompt ? read.firstPrompt : undefined);
	// Filled in place, optional fields only when set (a thousand rows a pass: no spread per field).
	const row: FleetRow = {
		...base,
		id: read.id ?? entry?.sessionId ?? idFromName(file.path),
		agent: agentOf(read.format),
		state: c.state,
		reason: read.malformed ? `${c.reason} (${read.malformed} unreadable line(s) passed over)` : c.reason,
		attention: c.attention,
	};
	const cwd = read.cwd ? read.cwd : entry?.cwd;
	if (cwd !== undefined) row.cwd = cwd;
	if (label) row.label = clip(oneLine(label), 80);
	if (read.model) row.model = read.model;
	if (read.startedAt) row.startedAt = read.startedAt;
	if (c.preview) row.preview = c.preview;
	if (c.goal) row.goal = c.goal;
	if (c.concluded) row.concluded = c.concluded;
	if (c.nextStep) row.nextStep = c.nextStep;
	if (c.kind) row.kind = c.kind;
	return row;
}

/** A live session without a file (`--no-session`): reachable, but its transcript cannot be read. */
function liveOnlyRow(entry: LiveEntry, now: number, times: FleetTimes): FleetRow {
	const at = entry.activityAt ?? Date.parse(entry.updatedAt);
	const busy = entry.busy;
	const waiting = liveWait(entry);
	const base = {
		id: entry.sessionId,
		source: "pi" as const,
		agent: "pi",
		cwd: entry.cwd,
		live: liveInfo(entry),
		lastActivityAt: new Date(at).toISOString(),
		startedAt: entry.startedAt,
	};
	if (waiting)
		return { ...base, state: "waiting", reason: liveWaitReason(waiting, now), kind: "blocked", attention: true };
	return {
		...base,
		state: busy ? "working" : now - at >= times.dormantMs ? "dormant" : "unknown",
		reason: busy ? "a run is in progress (the live session says so)" : "no session file: its transcript cannot be read",
		attention: false,
	};
}

function runRow(run: RunInfo, now: number, times: FleetTimes): FleetRow {
	const at = Date.parse(run.updatedAt ?? run.startedAt ?? "") || now;
	const base = {
		id: run.id,
		source: "child-run" as const,
		agent: `child run${run.agents ? ` (${run.agents})` : ""}`,
		...(run.startedAt ? { startedAt: run.startedAt } : {}),
		lastActivityAt: new Date(at).toISOString(),
		attention: false,
	};
	if (run.state === "running") {
		if (run.pid === undefined || processAlive(run.pid))
			return { ...base, state: "working", reason: "the run is in progress" };
		return { ...base, state: "unknown", reason: "marked running, but its runner process is gone" };
	}
	if (now - at >= times.dormantMs) return { ...base, state: "dormant", reason: `ended ${ageText(now - at)} ago` };
	if (run.state === "lost")
		return { ...base, state: "unknown", reason: run.error ?? "the runner ended without a result" };
	return {
		...base,
		state: "done",
		reason: `the run ended (${run.state}${run.error ? `: ${clip(run.error, 80)}` : ""})`,
	};
}

function idFromName(path: string): string {
	const name = basename(path, ".jsonl");
	return /_([0-9a-f-]{36})$/.exec(name)?.[1] ?? name;
}

function liveInfo(entry: LiveEntry): NonNullable<FleetRow["live"]> {
	return { pid: entry.pid, busy: entry.busy, key: entry.key, policy: entry.policy };
}
