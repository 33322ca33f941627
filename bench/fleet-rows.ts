// The fleet pass's rows on fixed input, for proving that an optimisation changes no row: run it on
// two trees and compare the output (`cmp`). Input: the fleet bench's 1,000 generated files, and
// the session files of a folder given (e.g. ../shared/sessions/dev, copied into a scratch
// sessions folder, never written back), each file's mtime set to a spread of ages so that fresh,
// stalled and dormant sessions all occur; each set judged at the default times and with no stall
// and no dormancy (every file read and judged).
//   node --experimental-strip-types bench/fleet-rows.ts [--src DIR] [--sessions DIR] > rows.json
// --src: the src/ folder whose pass is run (default: this tree's).
import { copyFileSync, mkdirSync, readdirSync, utimesSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { writeFleetSessions } from "./fleet-sessions.ts";
import { scratchDir } from "./stats.ts";

const { values } = parseArgs({ options: { src: { type: "string" }, sessions: { type: "string" } } });
const src = resolve(values.src ?? join(import.meta.dirname, "..", "src"));
const { runPass } = (await import(
	pathToFileURL(join(src, "fleet", "pass.ts")).href
)) as typeof import("../src/fleet/pass.ts");

const NOW = Date.parse("2026-12-01T12:00:00Z");
const DAY = 86_400_000;
/** Ages spread over the files by a fixed step: a fifth under the stall time, the rest up to three days. */
const ageOf = (n: number): number => (n % 5 ? (n * 7919) % 259_200 : (n * 37) % 170) * 1000;

function agedFolder(root: string, name: string): { agentDir: string; dir: string } {
	const agentDir = join(root, name);
	const dir = join(agentDir, "sessions", "--rows--");
	mkdirSync(dir, { recursive: true });
	return { agentDir, dir };
}

function age(files: string[]): void {
	files.forEach((file, n) => {
		const at = (NOW - ageOf(n)) / 1000;
		utimesSync(file, at, at);
	});
}

const scratch = scratchDir("fleet-rows-");
try {
	const sets: Array<{ name: string; agentDir: string; dir: string }> = [];
	const generated = agedFolder(scratch.root, "generated");
	age(writeFleetSessions(generated.dir, 1000).files);
	sets.push({ name: "generated", ...generated });
	if (values.sessions) {
		const copied = agedFolder(scratch.root, "copied");
		const names = readdirSync(values.sessions)
			.filter((n) => n.endsWith(".jsonl"))
			.sort();
		const files = names.map((n) => {
			const to = join(copied.dir, n);
			copyFileSync(join(values.sessions as string, n), to);
			return to;
		});
		age(files);
		sets.push({ name: basename(values.sessions), ...copied });
	}
	const timings = [
		{ name: "default", times: { stallMs: 180_000, dormantMs: DAY } },
		{ name: "every file judged", times: { stallMs: 0, dormantMs: 1e15 } },
	];
	const out: Record<string, unknown> = {};
	for (const set of sets)
		for (const timing of timings) {
			const pass = runPass({ agentDir: set.agentDir, claudeDir: false, times: timing.times, env: {}, now: NOW });
			const local = (path: string) => path.replace(set.dir, "<dir>");
			out[`${set.name}, ${timing.name}`] = {
				sessions: pass.sessions.map((row) => ({ ...row, ...(row.file ? { file: local(row.file) } : {}) })),
				skipped: pass.skipped.map((s) => ({ path: local(s.path), reason: local(s.reason) })),
			};
		}
	process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
} finally {
	scratch.cleanup();
}
