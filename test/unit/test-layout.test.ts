// The test suite's shape, kept true by a test: every test file is in test/unit or
// test/integration (vitest runs nothing else), and a unit test starts no Pi session, no `pi`
// CLI, no git and no other process but mkfifo, so `npm run test:unit` stays seconds long.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";

const TEST = join(import.meta.dirname, "..");

function files(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
		const path = join(dir, e.name);
		return e.isDirectory() ? files(path) : [path];
	});
}

const tests = files(TEST)
	.filter((f) => f.endsWith(".test.ts"))
	.map((f) => relative(TEST, f));

it("keeps every test file in unit/ or integration/", () => {
	expect(tests.filter((f) => f.startsWith("unit/")).length).toBeGreaterThan(30);
	expect(tests.filter((f) => f.startsWith("integration/")).length).toBeGreaterThan(30);
	expect(tests.filter((f) => !f.startsWith("unit/") && !f.startsWith("integration/"))).toEqual([]);
});

it("starts no session, CLI, git or other process in a unit test", () => {
	// The helpers that start them, and the calls that do.
	const helpers = /support\/(pi-session|pi-cli|openai-server|subagent-cli|swapper|run-process|processes)\.ts"/;
	const calls = /\b(makeGitRepo|git|spawn|spawnSync|fork|exec|execSync)\(|\bexecFileSync\((?!"mkfifo")/;
	const starters = new RegExp(`${helpers.source}|${calls.source}`);
	const unit = files(join(TEST, "unit")).filter((f) => f.endsWith(".ts") && f !== import.meta.filename);
	const offenders = unit.filter((f) => starters.test(readFileSync(f, "utf8"))).map((f) => relative(TEST, f));
	expect(offenders).toEqual([]);
	expect(starters.test('import { startSession } from "../../support/pi-session.ts";')).toBe(true);
	expect(starters.test('execFileSync("git", ["init"])')).toBe(true);
	expect(starters.test('execFileSync("mkfifo", [fifo])')).toBe(false);
});
