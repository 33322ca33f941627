// The end of a readable scan report: how many files were scanned, how many each detector
// flagged, the worst sessions first, and the files that could not be scanned (listed once).
import { countsAsLoop, type ScanReport } from "./scan-session.ts";

const WORST_SHOWN = 10;

export interface Skipped {
	path: string;
	reason: string;
}

/** How bad a session's loops were: signals that count, then how many calls they cover. */
function loopWeight(report: ScanReport): [number, number] {
	const counting = report.loop.signals.filter(countsAsLoop);
	const covered = new Set<number>();
	for (const s of counting) for (let i = s.from; i <= s.to; i++) covered.add(i);
	return [counting.length, covered.size];
}

export function summaryText(reports: ScanReport[], skipped: Skipped[], older: number): string {
	const flagged = reports.filter((r) => r.loop.flagged);
	const claims = reports.filter((r) => r.claims.flagged);
	const idle = reports.filter((r) => r.idle.flagged);
	const notes = [
		skipped.length ? `${skipped.length} not scanned (listed on stderr)` : "",
		older ? `${older} older than --since left out` : "",
	].filter(Boolean);
	const lines = [
		`Summary: ${reports.length} session file(s) scanned${notes.length ? `, ${notes.join(", ")}` : ""}`,
		`  loops:  ${flagged.length} flagged`,
		`  claims: ${claims.length} flagged (a claim the session's own tool log contradicts)`,
		`  idle:   ${idle.length} flagged (an unfinished stop)`,
	];
	if (flagged.length) {
		const worst = flagged
			.map((report) => ({ report, weight: loopWeight(report) }))
			.sort(
				(a, b) => b.weight[0] - a.weight[0] || b.weight[1] - a.weight[1] || a.report.file.localeCompare(b.report.file),
			);
		lines.push("Worst sessions first:");
		for (const { report, weight } of worst.slice(0, WORST_SHOWN))
			lines.push(`  ${weight[0]} loop signal(s) covering ${weight[1]} of ${report.calls} calls: ${report.file}`);
		if (worst.length > WORST_SHOWN) lines.push(`  … and ${worst.length - WORST_SHOWN} more flagged`);
	}
	if (claims.length)
		lines.push(
			"False claims:",
			...claims
				.slice(0, WORST_SHOWN)
				.map(
					(r) =>
						`  ${r.claims.signals.filter((s) => s.verdict === "contradicted").length} contradicted claim(s): ${r.file}`,
				),
		);
	if (idle.length)
		lines.push("Unfinished stops:", ...idle.slice(0, WORST_SHOWN).map((r) => `  ${r.idle.kind}: ${r.file}`));
	return lines.join("\n");
}

/** The files not scanned, once each; files of no known format are grouped under one reason. */
export function skippedText(skipped: Skipped[], unknownReason: string): string {
	const unknown = skipped.filter((s) => s.reason === unknownReason);
	const other = skipped.filter((s) => s.reason !== unknownReason);
	const lines: string[] = [];
	if (other.length)
		lines.push(
			`pi-watchdog scan: ${other.length} file(s) not scanned:`,
			...other.map((s) => `  ${s.path}: ${s.reason}`),
		);
	if (unknown.length)
		lines.push(`pi-watchdog scan: ${unknown.length} file(s) ${unknownReason}:`, ...unknown.map((s) => `  ${s.path}`));
	return lines.join("\n");
}
