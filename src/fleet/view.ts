// The pass as a person reads it: timestamped, one block per session that needs something
// (idle, waiting), the most recently active first; the rest in one line (every row with
// --verbose); files passed over at the end with the reason. Pure.
import { homedir } from "node:os";
import { clip } from "../util/index.ts";
import { ageText } from "./classify.ts";
import type { FleetPass, FleetRow, FleetState } from "./types.ts";

const ORDER: FleetState[] = ["idle", "waiting", "working", "unknown", "done", "dormant"];
const SHOWN_SKIPS = 8;

export function sortRows(rows: FleetRow[]): FleetRow[] {
	const rank = (r: FleetRow) => (r.attention ? 0 : 1) * 10 + ORDER.indexOf(r.state);
	const time = (r: FleetRow) => Date.parse(r.lastActivityAt ?? "") || 0;
	return [...rows].sort((a, b) => rank(a) - rank(b) || time(b) - time(a));
}

export function passText(pass: FleetPass, options: { verbose?: boolean; now?: number } = {}): string {
	const now = options.now ?? Date.parse(pass.at);
	const rows = sortRows(pass.sessions);
	const shown = options.verbose ? rows : rows.filter((r) => r.attention);
	const stamp = pass.at.replace("T", " ").replace(/\.\d+Z$/, " UTC");
	const lines = [`Fleet · ${stamp} · ${rows.length} session${rows.length === 1 ? "" : "s"}`];
	if (!shown.length) lines.push("Nothing needs you: no session is idle or waiting.");
	for (const row of shown) lines.push("", ...rowLines(row, now));
	const rest = options.verbose ? [] : rows.filter((r) => !r.attention);
	if (rest.length) lines.push("", `Rest: ${countLine(rest)} (--verbose lists them)`);
	if (pass.skipped.length) {
		lines.push("", `Passed over ${pass.skipped.length} file${pass.skipped.length === 1 ? "" : "s"}:`);
		for (const s of pass.skipped.slice(0, SHOWN_SKIPS)) lines.push(`  ${s.path}: ${s.reason}`);
		if (pass.skipped.length > SHOWN_SKIPS)
			lines.push(`  … and ${pass.skipped.length - SHOWN_SKIPS} more (--json lists all)`);
	}
	return lines.join("\n");
}

/** "3 working, 30 done, 140 dormant". */
export function countLine(rows: FleetRow[]): string {
	const counts = new Map<FleetState, number>();
	for (const r of rows) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
	return ORDER.filter((s) => counts.has(s))
		.map((s) => `${counts.get(s)} ${s}`)
		.join(", ");
}

function rowLines(row: FleetRow, now: number): string[] {
	const ages = [
		row.startedAt ? `started ${ageText(now - Date.parse(row.startedAt))} ago` : "",
		row.lastActivityAt ? `active ${ageText(now - Date.parse(row.lastActivityAt))} ago` : "",
	].filter(Boolean);
	const who = [row.agent, row.model, row.live ? `live pid ${row.live.pid}` : ""].filter(Boolean).join(" · ");
	const label = row.label ? `  "${clip(row.label, 70)}"` : "";
	const head = `${row.state.toUpperCase().padEnd(8)} ${shortId(row.id)}${label}`;
	const lines = [
		head,
		`         ${who}${row.cwd ? ` · ${tilde(row.cwd)}` : ""}${ages.length ? ` · ${ages.join(", ")}` : ""}`,
	];
	if (row.preview) lines.push(`         last: "${clip(row.preview, 110)}"`);
	lines.push(`         why: ${clip(row.reason, 160)}`);
	if (row.delivery) lines.push(`         nudge: ${deliveryText(row.delivery)}`);
	return lines;
}

export function deliveryText(d: NonNullable<FleetRow["delivery"]>): string {
	const via =
		d.via === "tmux" ? `typed into tmux pane ${d.pane ?? ""}`.trim() : d.via === "mailbox" ? "via its mailbox" : "";
	return [d.outcome, via, d.reason ? `(${d.reason})` : ""].filter(Boolean).join(" ");
}

function shortId(id: string): string {
	return id.length > 13 ? id.slice(0, 13) : id;
}

function tilde(path: string): string {
	const home = homedir();
	return home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}
