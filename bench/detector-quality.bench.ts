// Detector quality on the labelled real sessions in ../shared/sessions/dev (read in place,
// never copied): every LOOP session should be flagged and no CLEAN one. Reports recall,
// precision and the sessions that go wrong, with the signals they rest on.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { countsAsLoop, scanSession } from "../src/scan/scan-session.ts";
import { reportFailure } from "./stats.ts";

interface Label {
	raw: string;
	label: string;
	secondary?: string;
}

const DIR = resolve(import.meta.dirname, "../../shared/sessions/dev");
const TARGET = 1; // recall on LOOP sessions; the CLEAN false positives must be 0 as well

try {
	if (!existsSync(join(DIR, "labels.json"))) throw new Error(`no labelled sessions at ${DIR}`);
	const labels = JSON.parse(readFileSync(join(DIR, "labels.json"), "utf8")) as Label[];
	let loops = 0;
	let caught = 0;
	let flagged = 0;
	let flaggedLoops = 0;
	const falsePositives: string[] = [];
	for (const row of labels) {
		const report = await scanSession(join(DIR, row.raw));
		const isLoop = row.label === "LOOP";
		const isClean = row.label === "CLEAN";
		if (isLoop) loops++;
		if (report.loop.flagged) {
			flagged++;
			if (isLoop) flaggedLoops++;
		}
		if (isLoop && report.loop.flagged) caught++;
		if (isClean && report.loop.flagged) falsePositives.push(row.raw);
		const mark = isLoop ? (report.loop.flagged ? "caught" : "MISSED") : isClean ? (report.loop.flagged ? "FALSE+" : "clean ") : report.loop.flagged ? "flag  " : "-     ";
		// The signal the verdict rests on (exact repetition, or a suspicion nothing resolved), else the first.
		const first = report.loop.signals.find(countsAsLoop) ?? report.loop.signals[0];
		console.log(`${mark} ${row.label.padEnd(15)} ${String(report.calls).padStart(4)} calls  ${row.raw.slice(0, 60)}${first ? `\n         ${first.kind} ${first.from}–${first.to}${first.resolvedAt !== undefined ? ` (resolved at ${first.resolvedAt})` : ""}: ${first.evidence.slice(0, 150)}` : ""}`);
	}
	const recall = loops ? caught / loops : 1;
	const precision = flagged ? flaggedLoops / flagged : 1;
	console.log(`LOOP recall ${caught}/${loops}, CLEAN flagged ${falsePositives.length}, precision ${precision.toFixed(2)} (flagged ${flagged} of ${labels.length} sessions)`);
	console.log(
		JSON.stringify({
			bench: "detector-quality",
			ratio: Number(recall.toFixed(3)),
			target: TARGET,
			higherIsBetter: true,
			pass: recall >= TARGET && falsePositives.length === 0,
			recall: Number(recall.toFixed(3)),
			precision: Number(precision.toFixed(3)),
			loops,
			caught,
			cleanFlagged: falsePositives.length,
			falsePositives,
			sessions: labels.length,
		}),
	);
} catch (error) {
	reportFailure("detector-quality", TARGET, error);
}
