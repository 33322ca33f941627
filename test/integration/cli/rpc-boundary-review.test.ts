// End to end through the real `pi` CLI in RPC mode: a run that writes a file is reviewed by
// the reviewer model (served by the scripted server), and its high finding continues the run.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, startScriptedServer, textOf } from "../../support/openai-server.ts";
import { REPO_ROOT, runPi, startCli, writeModelsJson } from "../../support/pi-cli.ts";
import { QUIET_PI_SETTINGS } from "../../support/pi-session.ts";
import { userSettingsPath, wd, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

it("reviews a write run and continues it with the high finding", async () => {
	const repo = makeGitRepo({ "hello.txt": "hello\n" });
	const script = (req: ChatRequest) => {
		const last = req.messages.at(-1);
		if (req.model === "reviewer") {
			if (last?.role === "tool") return { text: "Reported." };
			return {
				toolCalls: [
					{
						name: "watchdog_warn",
						args: {
							summary: "hello.txt lost its trailing greeting",
							evidence: "hello.txt now reads 'bye' although the user asked to keep the greeting",
							recommendedAction: "Restore the greeting in hello.txt",
							importance: "high",
							severity: "blocker",
							category: "missed-constraint",
						},
					},
				],
			};
		}
		if (last?.role === "tool") return { text: "Updated hello.txt." };
		if (textOf(last?.content).includes("The watchdog reviewed this run"))
			return { text: "Acknowledged: I will restore the greeting." };
		return { toolCalls: [{ name: "write", args: { path: "hello.txt", content: "bye\n" } }] };
	};
	const cli = await startCli({
		cwd: repo,
		script,
		userSettings: wd({ enabled: true, main: { model: "local/reviewer:high" } }),
	});
	try {
		await cli.run("Edit hello.txt but keep the greeting", 60_000);
		expect(readFileSync(join(repo, "hello.txt"), "utf8")).toBe("bye\n");
		const reviewerCalls = cli.server.requests.filter((r) => r.model === "reviewer");
		expect(reviewerCalls.length).toBe(2);
		expect(textOf(reviewerCalls[0].messages.find((m) => m.role === "user")?.content)).toContain(
			"Edit hello.txt but keep the greeting",
		);
		const continuation = cli.server.requests.filter((r) => r.model === "main").at(-1);
		expect(textOf(continuation?.messages.at(-1)?.content)).toContain("hello.txt lost its trailing greeting");
		expect(await cli.client.getLastAssistantText()).toBe("Acknowledged: I will restore the greeting.");
		// The footer said a review was running, then what came of it.
		const labels = cli.ui
			.filter((u) => u.method === "setStatus" && u.statusKey === "watchdog")
			.map((u) => u.statusText);
		expect(labels).toEqual(expect.arrayContaining(["watchdog: reviewing", "watchdog: 1 blocker sent"]));
		expect(labels.indexOf("watchdog: reviewing")).toBeLessThan(labels.indexOf("watchdog: 1 blocker sent"));
		const { entries } = await cli.client.getEntries();
		const kinds = entries.map((e: any) => (e.customType ? `${e.type}:${e.customType}` : e.type));
		expect(kinds).toEqual(
			expect.arrayContaining(["custom_message:watchdog-finding", "custom:watchdog-review", "custom:watchdog-scope"]),
		);
	} finally {
		await cli.stop();
	}
});

it("prints findings as plain text in print mode", async () => {
	const repo = makeGitRepo({ "notes.md": "# notes\n" });
	const server = await startScriptedServer((req) => {
		const last = req.messages.at(-1);
		if (req.model === "reviewer") {
			if (last?.role === "tool") return { text: "Reported." };
			return {
				toolCalls: [
					{
						name: "watchdog_warn",
						args: {
							summary: "The new heading is misspelt",
							evidence: "notes.md line 1 reads 'Notse'",
							recommendedAction: "Fix the spelling",
							importance: "low",
							severity: "concern",
							category: "other",
						},
					},
				],
			};
		}
		if (last?.role === "tool") return { text: "Renamed the heading." };
		return { toolCalls: [{ name: "write", args: { path: "notes.md", content: "# Notse\n" } }] };
	});
	try {
		const agentDir = tempDir();
		writeModelsJson(agentDir, server.baseUrl, [{ id: "main" }, { id: "reviewer", reasoning: true }]);
		writeJson(userSettingsPath(agentDir), {
			defaultProvider: "local",
			defaultModel: "main",
			...QUIET_PI_SETTINGS,
			...wd({ enabled: true, main: { model: "local/reviewer" } }),
		});
		const { code, stdout, stderr } = await runPi(
			["-p", "--no-session", "-e", resolve(REPO_ROOT, "index.ts"), "Rename the heading of notes.md"],
			{ cwd: repo, agentDir, timeoutMs: 60_000 },
		);
		expect(code).toBe(0);
		expect(stdout.trim()).toBe("Renamed the heading.");
		expect(stderr).toMatch(
			/watchdog: concern \(shown to you\): The new heading is misspelt\n  evidence: notes\.md line 1 reads 'Notse'\n  action: Fix the spelling\n  source: reviewer · importance: low · other/,
		);
	} finally {
		await server.close();
	}
});
