import { execFileSync } from "node:child_process";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson, readSettingsFile } from "../../../src/settings/files.ts";
import { SettingsStore } from "../../../src/settings/store.ts";
import { tempDir } from "../../support/temp.ts";
import { wd, writeJson } from "../../support/settings-files.ts";

describe("reading settings files", () => {
	it("reports malformed JSON with line and column", () => {
		expect(parseJson('{\n  "a": 1,\n  "b": }\n')).toMatchObject({
			ok: false,
			error: expect.stringMatching(/line 3, column 8/),
		});
		expect(parseJson('{"a": [1, 2')).toMatchObject({ ok: false, error: expect.stringMatching(/line 1, column 12/) });
		expect(parseJson("  \n")).toMatchObject({ ok: false, error: expect.stringMatching(/empty/) });
	});

	it("names the file in read errors, including a folder where the file should be", () => {
		const dir = tempDir();
		const bad = join(dir, "settings.json");
		writeFileSync(bad, "{ nope");
		const r = readSettingsFile(bad, dir);
		expect(r).toMatchObject({ state: "error" });
		if (r.state === "error") expect(r.message).toContain(bad);
		const folder = join(dir, "folder.json");
		mkdirSync(folder);
		const f = readSettingsFile(folder, dir);
		if (f.state === "error") expect(f.message).toMatch(/is a directory/);
		else expect.fail("a folder must be an error");
		expect(readSettingsFile(join(dir, "missing.json"), dir)).toEqual({ state: "missing" });
	});

	it("re-reads a file only when its stat changes", () => {
		const agentDir = tempDir();
		const cwd = tempDir();
		const store = new SettingsStore({ agentDir: () => agentDir, configDirName: ".pi" });
		const path = join(agentDir, "settings.json");
		writeJson(path, wd({ stalemateRepeats: 4 }));
		const first = store.resolve({ cwd, trusted: true });
		expect(first.settings.stalemateRepeats).toBe(4);
		expect(store.resolve({ cwd, trusted: true })).toBe(first); // memoised: nothing changed
		writeJson(path, wd({ stalemateRepeats: 5 }));
		utimesSync(path, new Date(), new Date(Date.now() + 5000)); // a distinct mtime even on coarse clocks
		const second = store.resolve({ cwd, trusted: true });
		expect(second).not.toBe(first);
		expect(second.settings.stalemateRepeats).toBe(5);
	});

	it("ignores an untrusted project's settings and says so", () => {
		const agentDir = tempDir();
		const cwd = tempDir();
		const store = new SettingsStore({ agentDir: () => agentDir, configDirName: ".pi" });
		writeJson(join(agentDir, "settings.json"), wd({ enabled: true }));
		writeJson(join(cwd, ".pi", "settings.json"), wd({ enabled: false, stalemateRepeats: 2 }));
		const untrusted = store.resolve({ cwd, trusted: false });
		expect(untrusted.enabled).toBe(true);
		expect(untrusted.settings.stalemateRepeats).toBe(3);
		expect(untrusted.ignored[0].message).toMatch(/not trusted/);
		const trusted = store.resolve({ cwd, trusted: true });
		// A trusted project tightens (a stalemate sooner) but cannot turn the watchdog off.
		expect(trusted.enabled).toBe(true);
		expect(trusted.sources.stalemateRepeats).toBe("project");
		expect(trusted.settings.stalemateRepeats).toBe(2);
		expect(trusted.refused?.map((r) => r.key)).toEqual(["enabled"]);
	});

	it("accepts a byte-order mark, as Pi does", () => {
		const agentDir = tempDir();
		const store = new SettingsStore({ agentDir: () => agentDir, configDirName: ".pi" });
		writeFileSync(join(agentDir, "settings.json"), `\uFEFF${JSON.stringify(wd({ enabled: true }))}`);
		const r = store.resolve({ cwd: tempDir(), trusted: true });
		expect(r.errors).toEqual([]);
		expect(r.enabled).toBe(true);
	});

	it("turns a settings file swapped for a FIFO into an error instead of waiting on it", () => {
		const agentDir = tempDir();
		const cwd = tempDir();
		const store = new SettingsStore({ agentDir: () => agentDir, configDirName: ".pi" });
		writeJson(join(agentDir, "settings.json"), wd({ enabled: true }));
		mkdirSync(join(cwd, ".pi"));
		execFileSync("mkfifo", [join(cwd, ".pi", "settings.json")]);
		const trusted = store.resolve({ cwd, trusted: true });
		expect(trusted.enabled).toBe(false);
		expect(trusted.errors[0].message).toMatch(/a FIFO, not a regular file/);
		// Untrusted, the file is not even looked at.
		const untrusted = store.resolve({ cwd, trusted: false });
		expect(untrusted.errors).toEqual([]);
		expect(untrusted.enabled).toBe(true);
	});
});
