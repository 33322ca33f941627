// Settings are consulted on every tool event, so a lookup must not re-read and re-validate
// the files. Measures, alternately in one run: a lookup through the store (one stat per file,
// memoised resolution) against reading, parsing and resolving both files each time.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveSettings } from "../src/settings/resolve.ts";
import { SettingsStore } from "../src/settings/store.ts";

const root = mkdtempSync(join(tmpdir(), "pi-watchdog-bench-"));
const agentDir = join(root, "agent");
const cwd = join(root, "repo");
mkdirSync(join(cwd, ".pi"), { recursive: true });
mkdirSync(agentDir, { recursive: true });
const userDoc = {
	theme: "dark",
	packages: Array.from({ length: 20 }, (_, i) => `npm:pkg-${i}`),
	subagents: {
		watchdog: {
			enabled: true,
			main: { model: "anthropic/claude-opus-4-8:high" },
			lsp: { maxFiles: 30 },
			rules: {
				roleModels: Object.fromEntries(
					Array.from({ length: 10 }, (_, i) => [`role${i}`, { allow: ["a/*"], deny: ["b/*"] }]),
				),
			},
		},
	},
};
writeFileSync(join(agentDir, "settings.json"), JSON.stringify(userDoc, null, 2));
writeFileSync(
	join(cwd, ".pi", "settings.json"),
	JSON.stringify({ subagents: { watchdog: { cadence: { everyNTools: 10 } } } }, null, 2),
);

const store = new SettingsStore({ agentDir: () => agentDir, configDirName: ".pi" });
const project = { cwd, trusted: true };
const uncached = () =>
	resolveSettings([
		{ source: "user", origin: "user", document: JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")) },
		{
			source: "project",
			origin: "project",
			document: JSON.parse(readFileSync(join(cwd, ".pi", "settings.json"), "utf8")),
		},
	]);

function time(fn: () => unknown, n: number): number {
	const start = process.hrtime.bigint();
	for (let i = 0; i < n; i++) fn();
	return Number(process.hrtime.bigint() - start) / n; // ns per call
}

const N = 2000;
const rounds = 10;
let cachedNs = 0;
let uncachedNs = 0;
time(() => store.resolve(project), 200); // warm up both
time(uncached, 200);
for (let r = 0; r < rounds; r++) {
	cachedNs += time(() => store.resolve(project), N);
	uncachedNs += time(uncached, N);
}
cachedNs /= rounds;
uncachedNs /= rounds;
rmSync(root, { recursive: true, force: true });

const ratio = cachedNs / uncachedNs;
const target = 0.25;
console.log(
	`settings lookup per tool event: cached ${(cachedNs / 1000).toFixed(1)} µs, read+parse+validate ${(uncachedNs / 1000).toFixed(1)} µs`,
);
console.log(
	JSON.stringify({
		bench: "settings-lookup",
		ratio: Number(ratio.toFixed(3)),
		target,
		pass: ratio <= target,
		cachedMicros: Number((cachedNs / 1000).toFixed(2)),
		uncachedMicros: Number((uncachedNs / 1000).toFixed(2)),
	}),
);
