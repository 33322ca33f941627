import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readGuidance } from "../../../src/review/guidance.ts";
import { tempDir } from "../../support/temp.ts";

function project(): { cwd: string; agentDir: string; md: string } {
	const cwd = tempDir();
	const agentDir = tempDir();
	mkdirSync(join(cwd, ".pi"));
	writeFileSync(join(agentDir, "WATCHDOG.md"), "user rule: never skip tests\n");
	return { cwd, agentDir, md: join(cwd, ".pi", "WATCHDOG.md") };
}

describe("WATCHDOG.md", () => {
	it("reads the project's file only in a trusted project, the user's always", () => {
		const { cwd, agentDir, md } = project();
		writeFileSync(md, "project rule\n");
		const trusted = readGuidance({ cwd, agentDir, configDirName: ".pi", trusted: true });
		expect(trusted.files.map((f) => [f.source, f.text])).toEqual([
			["project", "project rule"],
			["user", "user rule: never skip tests"],
		]);
		const untrusted = readGuidance({ cwd, agentDir, configDirName: ".pi", trusted: false });
		expect(untrusted.files.map((f) => f.source)).toEqual(["user"]);
		expect(untrusted.skipped).toEqual([]);
	});

	it("skips a project file that links out of the repository (a private key), with the reason", () => {
		const { cwd, agentDir, md } = project();
		const key = join(tempDir(), "id_rsa");
		writeFileSync(key, "-----BEGIN OPENSSH PRIVATE KEY-----\nTOP-SECRET\n");
		symlinkSync(key, md);
		const r = readGuidance({ cwd, agentDir, configDirName: ".pi", trusted: true });
		expect(JSON.stringify(r.files)).not.toContain("TOP-SECRET");
		expect(r.skipped[0]).toMatch(/leads outside/);
	});

	it("skips a FIFO and a link to /dev/zero at once", () => {
		const { cwd, agentDir, md } = project();
		execFileSync("mkfifo", [md]);
		const started = Date.now();
		const fifo = readGuidance({ cwd, agentDir, configDirName: ".pi", trusted: true });
		expect(Date.now() - started).toBeLessThan(500);
		expect(fifo.skipped[0]).toMatch(/a FIFO/);
		const other = project();
		mkdirSync(join(other.cwd, "dev"));
		symlinkSync("/dev/zero", join(other.cwd, "dev", "zero"));
		symlinkSync(join(other.cwd, "dev", "zero"), other.md);
		const zero = readGuidance({ cwd: other.cwd, agentDir: other.agentDir, configDirName: ".pi", trusted: true });
		expect(zero.skipped[0]).toMatch(/leads outside/);
		expect(zero.files.map((f) => f.source)).toEqual(["user"]);
	});

	it("reads only the start of a huge file", () => {
		const { cwd, agentDir, md } = project();
		writeFileSync(md, "start of the rules\n");
		truncateSync(md, 300 * 1024 * 1024);
		const before = process.memoryUsage().rss;
		const r = readGuidance({ cwd, agentDir, configDirName: ".pi", trusted: true });
		expect(r.files[0].text.startsWith("start of the rules")).toBe(true);
		expect(r.files[0].text.length).toBeLessThanOrEqual(32 * 1024);
		expect(process.memoryUsage().rss - before).toBeLessThan(50 * 1024 * 1024);
	});
});
