// Speed-ups that must change nothing, checked on the real sessions of ../shared/sessions/dev (read in place,
// never copied; data outside this repository, so checked here and not in the test suite, which checks the same
// on generated files): scan's line shortcuts give the same report and events as parsing every line in full,
// on each session whole and on a damaged copy of it (lines cut short, bad escapes, raw control characters, a
// text's copies made to differ); outcomeText equals its definition on every tool result; and the loop
// detector's speed-ups (test/support/detector-reference.ts) change nothing: a bash call's subjects from the
// memo, and the scan's loop signals merged without copying them. Target: 0 differences, with all four
// formats seen.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { outcomeText, subjectsOf } from "../src/loops/normalize.ts";
import { readSessionEvents } from "../src/scan/read-session.ts";
import { scanSession } from "../src/scan/scan-session.ts";
import { commandSubjectsReference, scanLoopSignalsReference } from "../test/support/detector-reference.ts";
import { devSessionFiles } from "../test/support/dev-sessions.ts";
import { outcomeReference } from "../test/support/outcome-reference.ts";
import { bothWays, damage } from "../test/support/scan-both-ways.ts";
import { seededRandom } from "../test/support/seeded-random.ts";
import { reportFailure, scratchDir } from "./stats.ts";

const { root, cleanup } = scratchDir("pi-watchdog-bench-dev-equivalence-");
try {
	const files = devSessionFiles();
	const differences: string[] = [];
	const formats = new Set<string>();
	let damagedSkipped = 0;
	let results = 0;
	let loopSignals = 0;
	for (const [k, file] of files.entries()) {
		const name = basename(file);
		const whole = await bothWays(file);
		formats.add(whole.fast.report.format);
		if (!isDeepStrictEqual(whole.fast, whole.full)) differences.push(`${name}: shortcuts change the scan`);
		const copy = join(root, name);
		writeFileSync(copy, damage(readFileSync(file, "utf8"), seededRandom(100 + k)), "utf8");
		const damaged = await bothWays(copy);
		damagedSkipped += damaged.fast.report.skippedLines;
		if (!isDeepStrictEqual(damaged.fast, damaged.full))
			differences.push(`${name} (damaged): shortcuts change the scan`);
		for await (const event of readSessionEvents(file)) {
			if (event.type !== "call") continue;
			results++;
			const { result, isError } = event.call;
			if (outcomeText(result, isError) !== outcomeReference(result, isError))
				differences.push(`${name}: outcomeText differs from its definition on ${JSON.stringify(result.slice(0, 80))}`);
			const { command, kind } = event.call;
			if (kind === "bash" && command && !isDeepStrictEqual(subjectsOf(event.call), commandSubjectsReference(command)))
				differences.push(`${name}: subjectsOf differs from its definition on ${JSON.stringify(command.slice(0, 80))}`);
		}
		const signals = (await scanSession(file)).loop.signals;
		loopSignals += signals.length;
		if (!isDeepStrictEqual(signals, await scanLoopSignalsReference(file)))
			differences.push(`${name}: the scan's loop signals differ from the reference merge`);
	}
	for (const d of differences.slice(0, 20)) console.log(`difference: ${d}`);
	console.log(
		`${files.length} sessions (formats: ${[...formats].sort().join(", ")}), ${results} tool results; damaged copies: ` +
			`${damagedSkipped} unreadable lines skipped alike both ways; ${differences.length} difference(s)`,
	);
	const allFormats = ["claude-code", "claude-export", "pi", "pi-subagents"].every((f) => formats.has(f));
	const pass = differences.length === 0 && allFormats && damagedSkipped > 100 && results > 1000;
	console.log(
		JSON.stringify({
			bench: "dev-equivalence",
			ratio: differences.length,
			target: 0,
			pass,
			sessions: files.length,
			results,
			loopSignals,
			damagedSkipped,
			formats: [...formats].sort(),
		}),
	);
	if (!pass) process.exitCode = 1;
} catch (error) {
	reportFailure("dev-equivalence", 0, error);
} finally {
	cleanup();
}
