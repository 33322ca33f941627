// The warm language server over a long session: what it holds and what it does in the
// background must not grow with every file the watchdog ever checked. On a generated TypeScript
// project of 520 files (each importing the previous one and using its types), one LspManager
// checks 500 different files one edit at a time, as a long session's end-of-run checks would.
// Measured after the 20th and after the 500th check: the server's resident memory (its whole
// process group, tsserver included) at the end of the 10 s quiet window after the check (what a
// session that is mostly idle holds; the figure right after the check is printed beside it), and
// the CPU time its group spends in those 10 s (typescript-language-server re-checks every open
// document in the background after a change, and the server's idle collection runs then).
// Targets: RSS after 500 ≤ 1.2 × after 20, and that CPU after 500 ≤ 1.2 × after 20
// (the printed ratio is the larger of the two). Every check is verified: it checked the edited
// file and its importer, and found nothing (the project is clean); the last one finds an
// injected type error.
import { readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mkdirSync } from "node:fs";
import { LspManager } from "../src/lsp/lsp-manager.ts";
import { groupMembers } from "../src/lsp/process-tree.ts";
import { commitAll } from "./git-repo.ts";
import { median, reportFailure, round, scratchDir } from "./stats.ts";

const FILES = 520;
const CHECKS = 500;
const EARLY = 20;
const QUIET_MS = 10_000;
const TARGET = 1.2;
const SETTINGS = { timeoutMs: 60_000, maxFiles: 20, idleMs: 3_600_000 };
const MiB = 1024;

const ownBin = join(dirname(dirname(fileURLToPath(import.meta.url))), "node_modules", ".bin");
if (!(process.env.PATH ?? "").split(delimiter).includes(ownBin))
	process.env.PATH = `${ownBin}${delimiter}${process.env.PATH ?? ""}`;

const pad = (n: number) => String(n).padStart(3, "0");
const rel = (n: number) => `src/m${pad(n)}.ts`;

function source(n: number, marker: number, broken = false): string {
	const N = pad(n);
	const out = [`// Generated module ${n} of ${FILES}.`];
	if (n > 0) out.push(`import type { Item${pad(n - 1)} } from "./m${pad(n - 1)}";`);
	out.push(
		`export interface Item${N} {\n\tid: number;\n\tname: string;\n\ttags: readonly string[];${n > 0 ? `\n\tprev?: Item${pad(n - 1)};` : ""}\n}`,
	);
	for (let k = 0; k < 8; k++)
		out.push(
			`export function make${N}_${k}(id: number, name: string): Item${N} {\n\treturn { id: id + ${k}, name: \`\${name}-${k}\`, tags: ["t${k}"] };\n}`,
		);
	out.push(`export const marker${N}: number = ${broken ? '"broken"' : marker};`);
	return `${out.join("\n")}\n`;
}

/** CPU time (user + system, ms) of the live processes of a group, from /proc. */
function groupCpuMs(pgid: number): number {
	const tick = 100; // USER_HZ on Linux
	let total = 0;
	for (const p of groupMembers(pgid)) {
		try {
			const stat = readFileSync(`/proc/${p.pid}/stat`, "utf8");
			const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			total += ((Number(rest[11]) + Number(rest[12])) * 1000) / tick;
		} catch {
			// exited while we looked
		}
	}
	return total;
}

const { root, cleanup } = scratchDir("pi-watchdog-bench-lsp-long-");
let lsp: LspManager | undefined;
try {
	const repo = join(root, "project");
	mkdirSync(join(repo, "src"), { recursive: true });
	writeFileSync(
		join(repo, "tsconfig.json"),
		JSON.stringify({
			compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler" },
			include: ["src"],
		}),
	);
	for (let n = 0; n < FILES; n++) writeFileSync(join(repo, rel(n)), source(n, 0));
	commitAll(repo, "generated");
	console.log(
		`generated ${FILES} files, each importing the previous one; checking ${CHECKS} of them one edit at a time`,
	);

	lsp = new LspManager(repo);
	const manager = lsp;
	interface Sample {
		/** At the end of the quiet window. */
		rssKb: number;
		/** Right after the check. */
		checkRssKb: number;
		cpuMs: number;
		open?: number;
		requests?: number;
	}
	/** The server's memory now and after QUIET_MS, and its CPU over those QUIET_MS. */
	async function sample(): Promise<Sample> {
		const status = manager.status();
		if (status.pid === undefined || status.rssKb === undefined)
			throw new Error(`the server is not warm: ${status.state}`);
		const pid = status.pid;
		const c0 = groupCpuMs(pid);
		await new Promise((r) => setTimeout(r, QUIET_MS));
		const after = manager.status();
		return {
			rssKb: after.rssKb ?? status.rssKb,
			checkRssKb: status.rssKb,
			cpuMs: groupCpuMs(pid) - c0,
			open: after.openDocuments,
			requests: after.requests,
		};
	}
	const times: number[] = [];
	let early: Sample | undefined;
	let late: Sample | undefined;
	for (let i = 0; i < CHECKS; i++) {
		// Files 10, 11, … so that each has an importer (the next file) to check beside it.
		const n = 10 + i;
		const last = i === CHECKS - 1;
		writeFileSync(join(repo, rel(n)), source(n, i + 1, last));
		const t0 = process.hrtime.bigint();
		const result = await lsp.check([rel(n)], SETTINGS, false);
		times.push(Number(process.hrtime.bigint() - t0) / 1e6);
		if (!result.checked.includes(rel(n)) || !result.checked.includes(rel(n + 1)))
			throw new Error(
				`check ${i + 1}: checked ${JSON.stringify(result.checked)}, expected ${rel(n)} and ${rel(n + 1)}`,
			);
		const errors = result.diagnostics.filter((d) => d.severity === "error");
		if (last ? !errors.some((d) => d.path === rel(n) && d.code === 2322) : errors.length)
			throw new Error(`check ${i + 1}: unexpected diagnostics ${JSON.stringify(errors).slice(0, 400)}`);
		if (i + 1 === EARLY) early = await sample();
		if (last) late = await sample();
		if ((i + 1) % 100 === 0)
			console.log(`${i + 1} checks: median ${median(times.slice(-100)).toFixed(1)} ms per check over the last 100`);
	}
	if (!early || !late) throw new Error("no samples");
	const rssRatio = late.rssKb / early.rssKb;
	const cpuRatio = late.cpuMs / Math.max(1, early.cpuMs);
	const ratio = Math.max(rssRatio, cpuRatio);
	const pass = rssRatio <= TARGET && cpuRatio <= TARGET;
	const line = (what: string, s: Sample) =>
		`after ${what} checks: server RSS ${(s.rssKb / MiB).toFixed(0)} MiB ${QUIET_MS / 1000} s later (${(s.checkRssKb / MiB).toFixed(0)} MiB right after the check), its CPU in the next ${QUIET_MS / 1000} s ${s.cpuMs.toFixed(0)} ms${s.open !== undefined ? `, ${s.open} documents open` : ""}`;
	console.log(line(String(EARLY), early));
	console.log(line(String(CHECKS), late));
	console.log(
		`ratio after ${CHECKS} / after ${EARLY}: RSS ${rssRatio.toFixed(3)} (right after the check ${(late.checkRssKb / early.checkRssKb).toFixed(3)}, not part of the ratio), background CPU ${cpuRatio.toFixed(3)} (target ≤ ${TARGET} each)`,
	);
	console.log(
		JSON.stringify({
			bench: "lsp-long",
			ratio: round(ratio, 3),
			target: TARGET,
			pass,
			note: `RSS ${(early.rssKb / MiB).toFixed(0)} → ${(late.rssKb / MiB).toFixed(0)} MiB, background CPU ${early.cpuMs.toFixed(0)} → ${late.cpuMs.toFixed(0)} ms`,
			rssRatio: round(rssRatio, 3),
			cpuRatio: round(cpuRatio, 3),
			earlyRssMiB: round(early.rssKb / MiB, 1),
			lateRssMiB: round(late.rssKb / MiB, 1),
			earlyCheckRssMiB: round(early.checkRssKb / MiB, 1),
			lateCheckRssMiB: round(late.checkRssKb / MiB, 1),
			earlyCpuMs: round(early.cpuMs, 0),
			lateCpuMs: round(late.cpuMs, 0),
			earlyOpen: early.open,
			lateOpen: late.open,
			medianCheckMs: round(median(times), 1),
			checks: CHECKS,
		}),
	);
	if (!pass) process.exitCode = 1;
} catch (error) {
	reportFailure("lsp-long", TARGET, error);
} finally {
	await lsp?.shutdown();
	cleanup();
}
