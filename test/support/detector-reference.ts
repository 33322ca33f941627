// The loop detector's pieces as they were defined before they were made faster, for the tests and
// the dev-equivalence bench to compare the fast ones against: a bash call's subjects worked out
// afresh (no memo), word counts in a Map (text-loops' table), and the scan's merging of the
// detector's signals into one per loop, copying each signal's text when it is raised.
import { isNudge, LoopDetector, type LoopSignal } from "../../src/loops/index.ts";
import { normalizeCommand } from "../../src/loops/normalize.ts";
import type { ScanSignal } from "../../src/scan/scan-session.ts";
import { readSessionEvents } from "../../src/scan/read-session.ts";

/** subjectsOf's bash branch without its memo. */
export function commandSubjectsReference(command: string): string[] {
	const files = new Set<string>();
	for (const raw of normalizeCommand(command).split(/[\s|;&<>()]+/)) {
		const token = raw.replace(/^['"]|['"]$/g, "");
		if (!token || token.startsWith("-") || token.includes("..") || /^[a-z]+:\/\//i.test(token)) continue;
		if (/[^./]\.[A-Za-z][A-Za-z0-9]{0,5}$/.test(token)) files.add(`file:${token.replace(/^.*[/:]/, "")}`);
	}
	return files.size ? [...files] : [`cmd:${normalizeCommand(command)}`];
}

/** How often each position's value occurs among all of them, counted in a Map. */
export function timesSaidReference(hashes: number[]): number[] {
	const said = new Map<number, number>();
	for (const h of hashes) said.set(h, (said.get(h) ?? 0) + 1);
	return hashes.map((h) => said.get(h) as number);
}

/** The scan's loop signals as scanSession gathered them before: each sighting merged by object spread. */
export async function scanLoopSignalsReference(file: string): Promise<ScanSignal[]> {
	const detector = new LoopDetector();
	const done: ScanSignal[] = [];
	let found = new Map<string, LoopSignal>();
	const close = (resolvedAt?: number) => {
		for (const s of found.values())
			done.push({
				kind: s.kind,
				from: s.from,
				to: s.to,
				summary: s.headline,
				evidence: s.evidence,
				...(resolvedAt !== undefined ? { resolvedAt } : {}),
			});
		found = new Map();
	};
	const note = (signals: LoopSignal[]) => {
		for (const signal of signals) {
			const earlier = found.get(signal.key);
			if (!earlier) found.set(signal.key, signal);
			else if (signal.to - earlier.to <= detector.thresholds.window)
				found.set(signal.key, {
					...earlier,
					to: signal.to,
					count: signal.count,
					headline: signal.headline,
					evidence: signal.evidence,
				});
			else found.set(`${signal.key}@${signal.from}`, signal);
		}
	};
	for await (const event of readSessionEvents(file)) {
		if (event.type === "prompt") {
			if (isNudge(event.text)) continue;
			close();
			detector.reset();
		} else if (event.type === "compaction") note(detector.compacted(event.overflow === true));
		else if (event.type === "call") {
			const signals = detector.add(event.call);
			if (detector.lastLanded === event.call.index) close(event.call.index);
			note(signals);
		} else if (event.text) note(detector.said(event.text));
	}
	close();
	return done.sort((a, b) => a.from - b.from || a.to - b.to);
}
