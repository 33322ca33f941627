// `pi-watchdog doctor` from the shell: the real bin, the real `pi --version`, git and the bundled
// language server, against agent folders made for each case. Exit 0 only when every check holds.
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, writeModelsJson } from "../../support/pi-cli.ts";
import { runBin } from "../../support/session-files.ts";
import { userSettingsPath, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";
import { writeFileSync } from "node:fs";

// `pi` and Node 22 as an installation has them on PATH.
const PATH = [join(REPO_ROOT, "node_modules", ".bin"), process.env.PATH ?? ""].join(delimiter);

function agentFolder(settings: Record<string, unknown>): string {
	const agentDir = tempDir("pi-watchdog-doctor-");
	writeModelsJson(agentDir, "http://127.0.0.1:9", [{ id: "main" }, { id: "reviewer", reasoning: true }]);
	writeJson(userSettingsPath(agentDir), settings);
	return agentDir;
}

const doctor = (agentDir: string) =>
	runBin(["doctor"], { cwd: tempDir(), env: { PI_CODING_AGENT_DIR: agentDir, PATH, PI_OFFLINE: "1" } });

describe("pi-watchdog doctor", () => {
	it("passes every check of a working installation and exits 0", async () => {
		const agentDir = agentFolder({
			packages: [REPO_ROOT],
			defaultProvider: "local",
			defaultModel: "main",
			subagents: { watchdog: { enabled: true, main: { model: "local/reviewer:high" } } },
		});
		const ran = await doctor(agentDir);
		expect(ran.stdout).toMatch(/^ok {4}Node\.js +22\./m);
		expect(ran.stdout).toMatch(/^ok {4}Pi +1\.6\.\d+/m);
		expect(ran.stdout).toMatch(/^ok {4}Pi loads the package +listed in /m);
		expect(ran.stdout).toMatch(/^ok {4}Reviewer model +Model local\/reviewer resolves and has credentials/m);
		expect(ran.stdout).toMatch(/^ok {4}Language server +typescript-language-server \d/m);
		expect(ran.stdout).toContain("All 8 checks passed.");
		expect(ran.code).toBe(0);
	});

	it("names the line and column of malformed settings, and that Pi drops the package for it", async () => {
		const agentDir = agentFolder({});
		writeFileSync(
			userSettingsPath(agentDir),
			`{\n  "packages": ["${REPO_ROOT}"],\n  "subagents": { "watchdog": { "enabled": true, } }\n}\n`,
		);
		const ran = await doctor(agentDir);
		expect(ran.stdout).toMatch(/^FAIL {2}Pi loads the package +\S+settings\.json: invalid JSON at line 3, column \d+/m);
		expect(ran.stdout).toMatch(/Pi drops every package listed in a file it cannot parse/);
		expect(ran.stdout).toMatch(/^FAIL {2}Settings /m);
		expect(ran.code).toBe(1);
	});

	it("fails on a package Pi does not list and a reviewer model without credentials, saying what to do", async () => {
		const agentDir = agentFolder({
			defaultProvider: "local",
			defaultModel: "main",
			subagents: { watchdog: { main: { model: "anthropic/claude-opus-4-5" } } },
		});
		const ran = await doctor(agentDir);
		expect(ran.stdout).toMatch(
			/^FAIL {2}Pi loads the package +no entry in \S+ "packages" is this package: run pi install/m,
		);
		expect(ran.stdout).toMatch(/^FAIL {2}Reviewer model +.*no credentials/m);
		expect(ran.stdout).toContain("2 of 8 checks failed.");
		expect(ran.code).toBe(1);
	});
});
