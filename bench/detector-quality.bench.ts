// Detector quality on the labelled real sessions in ../shared/sessions/dev (read in place,
// never copied), per class: LOOP (the loop detector), FALSE-CLAIM (the claims checker) and
// IDLE-UNFINISHED (the unfinished-stop detector). A session counts as positive for a class when
// its label or its secondary label names it; every positive should be flagged in its class and
// no CLEAN session in any class. Reports precision and recall per class with the session names.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { countsAsLoop, type ScanReport, scanSession } from "../src/scan/scan-session.ts";
import { devSessionsDir } from "../test/support/dev-sessions.ts";
import { reportFailure } from "./stats.ts";

interface Label {
	raw: string;
	label: string;
	secondary?: string;
}

const DIR = devSessionsDir();
const TARGET = 0.8; // recall on each class's primary-labelled sessions; CLEAN flagged must be 0 as well

const CLASSES = [
	{
		name: "LOOP",
		flagged: (r: ScanReport) => r.loop.flagged,
		why: (r: ScanReport) => {
			const s = r.loop.signals.find(countsAsLoop) ?? r.loop.signals[0];
			return s ? `${s.kind} ${s.from}–${s.to}: ${s.summary}. ${s.evidence}` : "";
		},
	},
	{
		name: "FALSE-CLAIM",
		flagged: (r: ScanReport) => r.claims.flagged,
		why: (r: ScanReport) => {
			const s = r.claims.signals.find((x) => x.verdict === "contradicted") ?? r.claims.signals[0];
			return s ? `${s.kind} ${s.from}–${s.to} "${s.claim}": ${s.evidence}` : "";
		},
	},
	{
		name: "IDLE-UNFINISHED",
		flagged: (r: ScanReport) => r.idle.flagged,
		why: (r: ScanReport) => (r.idle.kind ? `${r.idle.kind} after call ${r.idle.at}: ${r.idle.evidence}` : ""),
	},
] as const;

try {
	if (!existsSync(join(DIR, "labels.json"))) throw new Error(`no labelled sessions at ${DIR}`);
	const labels = JSON.parse(readFileSync(join(DIR, "labels.json"), "utf8")) as Label[];
	const reports: Array<{ row: Label; report: ScanReport }> = [];
	// A file scan cannot read is a miss in its class and is listed, never a crash of the bench.
	const unreadable: string[] = [];
	for (const row of labels) {
		try {
			reports.push({ row, report: await scanSession(join(DIR, row.raw)) });
		} catch (error) {
			unreadable.push(`${row.raw}: ${error instanceof Error ? error.message : String(error)}`);
		}
	}
	const per: Record<string, unknown> = {};
	let pass = true;
	const cleanFlagged: string[] = [];
	for (const c of CLASSES) {
		const isPrimary = (row: Label) => row.label === c.name;
		const isAny = (row: Label) => isPrimary(row) || (row.secondary ?? "").includes(c.name);
		const positives = reports.filter((x) => isPrimary(x.row));
		const caught = positives.filter((x) => c.flagged(x.report));
		const missed = [
			...positives.filter((x) => !c.flagged(x.report)).map((x) => x.row.raw),
			...labels.filter((row) => isPrimary(row) && unreadable.some((u) => u.startsWith(row.raw))).map((r) => r.raw),
		];
		const flagged = reports.filter((x) => c.flagged(x.report));
		const correct = flagged.filter((x) => isAny(x.row));
		const wrong = flagged.filter((x) => !isAny(x.row)).map((x) => `${x.row.raw} (${x.row.label})`);
		const clean = flagged.filter((x) => x.row.label === "CLEAN").map((x) => x.row.raw);
		cleanFlagged.push(...clean.map((n) => `${c.name}: ${n}`));
		const all = caught.length + missed.length;
		const recall = all ? caught.length / all : 1;
		const precision = flagged.length ? correct.length / flagged.length : 1;
		if (recall < TARGET || clean.length) pass = false;
		console.log(
			`\n${c.name}: recall ${caught.length}/${all} (${recall.toFixed(2)}), precision ${correct.length}/${flagged.length} (${precision.toFixed(2)}; a session whose secondary label names the class counts as correct)`,
		);
		for (const x of flagged)
			console.log(
				`  ${isAny(x.row) ? "caught" : "FALSE+"} ${x.row.label.padEnd(15)} ${x.row.raw.slice(0, 64)}\n         ${c.why(x.report).slice(0, 200)}`,
			);
		for (const name of missed) console.log(`  MISSED ${name}`);
		per[c.name] = {
			recall: Number(recall.toFixed(3)),
			precision: Number(precision.toFixed(3)),
			positives: all,
			caught: caught.map((x) => x.row.raw),
			missed,
			flagged: flagged.length,
			falsePositives: wrong,
		};
	}
	const loop = per.LOOP as { recall: number };
	for (const u of unreadable) console.log(`UNREADABLE ${u}`);
	if (unreadable.length) pass = false;
	console.log(
		`\n${labels.length} sessions (${unreadable.length} unreadable); CLEAN flagged in any class: ${cleanFlagged.length}${cleanFlagged.length ? ` (${cleanFlagged.join(", ")})` : ""}`,
	);
	console.log(
		JSON.stringify({
			bench: "detector-quality",
			ratio: Math.min(...CLASSES.map((c) => (per[c.name] as { recall: number }).recall)),
			target: TARGET,
			higherIsBetter: true,
			pass,
			recall: loop.recall,
			classes: per,
			cleanFlagged,
			unreadable,
			sessions: labels.length,
		}),
	);
} catch (error) {
	reportFailure("detector-quality", TARGET, error);
}
