// When a start may leave the main session's watchdog unloaded: only when the user's settings turn it off for
// certain and nothing else (a project file, the session's own overrides, a headless flag, a child's lineage)
// could need it. A settings file that is odd in any way loads it, and never hangs the start.
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type DormantInput, startsDormant } from "../../../src/startup/dormant.ts";
import { tempDir } from "../../support/temp.ts";

function setup(settings?: unknown): DormantInput & { root: string } {
	const root = tempDir("pi-watchdog-dormant-");
	const agentDir = join(root, "agent");
	const cwd = join(root, "project");
	mkdirSync(agentDir);
	mkdirSync(cwd);
	if (settings !== undefined)
		writeFileSync(join(agentDir, "settings.json"), typeof settings === "string" ? settings : JSON.stringify(settings));
	return { root, agentDir, cwd, configDirName: ".pi", entries: [], flag: () => undefined, env: {} };
}

const off = { subagents: { watchdog: { enabled: false, main: { model: "local/reviewer" } } } };

describe("startsDormant", () => {
	it("leaves the watchdog unloaded when the user's settings turn it off, or say nothing of it", () => {
		expect(startsDormant(setup())).toBe(true);
		expect(startsDormant(setup({ theme: "dark" }))).toBe(true);
		expect(startsDormant(setup(off))).toBe(true);
	});

	it("loads it when it is on, or the file does not parse", () => {
		expect(startsDormant(setup({ subagents: { watchdog: { enabled: true } } }))).toBe(false);
		expect(startsDormant(setup("{ not json"))).toBe(false);
		expect(startsDormant(setup(""))).toBe(false);
	});

	it("loads it when a project has a settings file, trusted or not (the watchdog decides whether to read it)", () => {
		const input = setup(off);
		mkdirSync(join(input.cwd, ".pi"));
		writeFileSync(join(input.cwd, ".pi/settings.json"), "{}");
		expect(startsDormant(input)).toBe(false);
	});

	it("loads it for the session's own overrides, a headless flag, a child's lineage or an environment to warn of", () => {
		const entries = [{ type: "custom", customType: "watchdog-session-settings" }];
		expect(startsDormant({ ...setup(off), entries })).toBe(false);
		expect(startsDormant({ ...setup(off), flag: (name) => (name === "watchdog-strict" ? true : undefined) })).toBe(
			false,
		);
		expect(startsDormant({ ...setup(off), flag: (name) => (name === "watchdog-report" ? "r.json" : undefined) })).toBe(
			false,
		);
		expect(startsDormant({ ...setup(off), env: { PI_SUBAGENT_LINEAGE: "{}" } })).toBe(false);
		expect(startsDormant({ ...setup(off), env: { PI_SUBAGENT_MAX_DEPTH: "3" } })).toBe(false);
		// the flag's default (false) is no flag
		expect(startsDormant({ ...setup(off), flag: (name) => (name === "watchdog-strict" ? false : undefined) })).toBe(
			true,
		);
	});

	it("loads it, without hanging, when the settings file is a FIFO or a link out of its folder", () => {
		const fifo = setup();
		execFileSync("mkfifo", [join(fifo.agentDir, "settings.json")]);
		expect(startsDormant(fifo)).toBe(false);
		const linked = setup();
		const outside = join(linked.root, "outside.json");
		writeFileSync(outside, JSON.stringify(off));
		symlinkSync(outside, join(linked.agentDir, "settings.json"));
		expect(startsDormant(linked)).toBe(false);
	});
});
