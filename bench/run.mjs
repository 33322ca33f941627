// Runs every bench/*.bench.ts in its own Node process (type stripping) and prints a summary of
// their last JSON lines. Exit code 1 when a benchmark misses its target.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
	.filter((f) => f.endsWith(".bench.ts"))
	.filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
	.sort();
// Pi's find tool needs fd, which no npm package ships (ripgrep comes with the project): say so
// once, before the benches start, rather than after the ones before it have run.
if (
	files.some((f) => f.startsWith("hook-overhead")) &&
	!["fd", "fdfind"].some((c) => spawnSync("sh", ["-c", `command -v ${c}`], { encoding: "utf8" }).stdout.trim())
)
	console.log(
		"hook-overhead needs fd on PATH (Pi's find tool runs it) and will fail without it: " +
			"apt-get install fd-find (Debian, Ubuntu), brew install fd (macOS), or a release of fd for your system",
	);
const results = [];
for (const file of files) {
	console.log(`\n== ${file}`);
	const run = spawnSync(process.execPath, ["--experimental-strip-types", "--no-warnings", join(here, file)], {
		stdio: ["ignore", "pipe", "inherit"],
		encoding: "utf8",
	});
	process.stdout.write(run.stdout);
	const last = run.stdout.trim().split("\n").at(-1) ?? "";
	try {
		results.push(JSON.parse(last));
	} catch {
		results.push({ bench: file, pass: false, error: `no JSON result (exit ${run.status})` });
	}
}
console.log("\n== summary");
for (const r of results)
	console.log(
		`${r.pass ? "PASS" : "FAIL"}  ${r.bench}  ratio ${r.ratio ?? "-"} (target ${r.higherIsBetter ? "≥" : "≤"} ${r.target ?? "-"})${r.note ? `; ${r.note}` : ""}`,
	);
process.exitCode = results.every((r) => r.pass) ? 0 : 1;
