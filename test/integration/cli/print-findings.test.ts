// Print mode (`pi -p`): stdout is the agent's answer; every finding the watchdog shows or sends,
// from any source (here the loop detector), goes to stderr saying where it went.
import { resolve } from "node:path";
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startScriptedServer } from "../../support/openai-server.ts";
import { REPO_ROOT, runPi, writeModelsJson } from "../../support/pi-cli.ts";
import { QUIET_PI_SETTINGS } from "../../support/pi-session.ts";
import { userSettingsPath, wd, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

it("prints a loop finding sent to the agent on stderr, and only the answer on stdout", async () => {
	const repo = makeGitRepo({ "status.txt": "waiting\n" });
	const server = await startScriptedServer((req) => {
		const polls = req.messages.filter((m) => m.role === "tool").length;
		return polls < 7
			? { toolCalls: [{ name: "bash", args: { command: "cat status.txt" } }] }
			: { text: "Still waiting; giving up." };
	});
	try {
		const agentDir = tempDir();
		writeModelsJson(agentDir, server.baseUrl, [{ id: "main" }, { id: "reviewer" }]);
		writeJson(userSettingsPath(agentDir), {
			defaultProvider: "local",
			defaultModel: "main",
			...QUIET_PI_SETTINGS,
			...wd({ enabled: true, main: { model: "local/reviewer" } }),
		});
		const { code, stdout, stderr } = await runPi(
			["-p", "--no-session", "-e", resolve(REPO_ROOT, "index.ts"), "wait for status.txt to say done"],
			{ cwd: repo, agentDir, timeoutMs: 60_000 },
		);
		expect(code).toBe(0);
		expect(stdout.trim()).toBe("Still waiting; giving up.");
		expect(stderr).toMatch(
			/watchdog: concern \(sent to the agent\): Same bash call repeated 5 times\n  evidence: Call: bash `cat status\.txt`\. /,
		);
	} finally {
		await server.close();
	}
});
