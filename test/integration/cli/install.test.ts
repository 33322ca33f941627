// The package as a user installs it: `pi install <path>`, then a plain `pi` session loads it.
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT, runPi, startCli } from "../../support/pi-cli.ts";
import { readJson, userSettingsPath } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

it("installs with `pi install <path>` and loads without errors, prompts not exposed as templates", async () => {
	// A copy of the package as npm would publish it, plus a model prompt that Pi must not pick up.
	const pkg = join(tempDir("pi-watchdog-pkg-"), "pi-watchdog");
	mkdirSync(pkg);
	for (const part of ["package.json", "index.ts", "src", "prompts"])
		if (existsSync(join(REPO_ROOT, part))) cpSync(join(REPO_ROOT, part), join(pkg, part), { recursive: true });
	mkdirSync(join(pkg, "prompts"), { recursive: true });
	writeFileSync(
		join(pkg, "prompts", "zz-probe.md"),
		"---\ndescription: must never become a slash command\n---\nYou review.\n",
	);
	symlinkSync(join(REPO_ROOT, "node_modules"), join(pkg, "node_modules"));

	const agentDir = tempDir("pi-watchdog-install-agent-");
	const installed = await runPi(["install", pkg], { cwd: tempDir(), agentDir });
	expect(installed.code, installed.stderr).toBe(0);
	expect(JSON.stringify(readJson(userSettingsPath(agentDir)).packages)).toContain("pi-watchdog");

	const cli = await startCli({ agentDir, loadExtension: false, script: () => ({ text: "hi" }) });
	try {
		const commands = await cli.client.getCommands();
		const ours = commands.find((c) => c.name === "subagents-watchdog");
		expect(ours?.sourceInfo?.path).toContain(pkg);
		expect(commands.some((c) => c.name.includes("zz-probe"))).toBe(false);
		expect(commands.filter((c) => c.source === "prompt")).toEqual([]);
		const status = await cli.run("/subagents-watchdog status --settings");
		expect(status[0].message).toMatch(/^Watchdog: off/);
		expect(cli.client.getStderr()).not.toMatch(/error|failed/i);
	} finally {
		await cli.stop();
	}
});
