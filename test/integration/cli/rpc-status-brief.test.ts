// The short status of a busy session, through the real `pi --mode rpc`: it fits 20 lines and
// says what a user looks for: on and why, the reviewer and the thinking it really runs at,
// pending changes, the last review, this prompt's findings with their fate (repeats folded).
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, textOf } from "../../support/openai-server.ts";
import { startCli } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";

it("fits a busy session's status in 20 lines", async () => {
	const repo = makeGitRepo({ "a.txt": "a\n" });
	let writes = 0;
	const script = (req: ChatRequest) => {
		const last = req.messages.at(-1);
		if (req.model === "reviewer") {
			if (last?.role === "tool") return { text: "Reported." };
			return {
				toolCalls: [
					{
						name: "watchdog_warn",
						args: {
							summary: "a.txt lost its only line",
							evidence: "a.txt no longer holds 'a'",
							recommendedAction: "Restore the line",
							importance: "high",
							severity: "blocker",
						},
					},
				],
			};
		}
		if (last?.role === "tool") return { text: "done" };
		if (writes < 2)
			return { toolCalls: [{ name: "write", args: { path: "a.txt", content: `${writes++ ? "y" : "x"}\n` } }] };
		return { text: textOf(last?.content).includes("watchdog") ? "I will leave it." : "ok" };
	};
	// The reviewer model has no reasoning, so thinking high runs at off.
	const cli = await startCli({
		cwd: repo,
		script,
		models: [{ id: "main" }, { id: "reviewer", reasoning: false }],
		userSettings: wd({ enabled: true, main: { model: "local/reviewer", thinking: "high" }, lsp: { enabled: false } }),
	});
	try {
		await cli.run("rewrite a.txt", 60_000);
		const status = (await cli.run("/subagents-watchdog status")).map((u) => u.message ?? "").join("\n");
		const lines = status.split("\n");
		expect(lines.length).toBeLessThanOrEqual(20);
		expect(lines[0]).toBe("Watchdog: on (enabled from user)");
		expect(status).toMatch(/^Reviewer: local\/reviewer, thinking high \(runs at off: the most this model supports\)$/m);
		expect(status).toMatch(/^Pending: nothing$/m);
		expect(status).toMatch(
			/^Last review: \d\d:\d\d:\d\d, 1 finding\(s\), [\d.]+ s, \$[\d.]+ \(2 this session, \$[\d.]+\)$/m,
		);
		expect(status).toMatch(
			/^ {2}1\. \d\d:\d\d blocker \(sent to the agent\) \[reviewer\] ×2 a\.txt lost its only line$/m,
		);
		expect(status).toMatch(/^LSP: off \(lsp\.enabled: false\)$/m);
		expect(status).toMatch(/^Loops: \d+ calls seen, no suspicion$/m);
		expect(status).toMatch(/^More: status --all/m);
		// --all adds your settings and the details, without the defaults; --settings lists everything.
		const all = (await cli.run("/subagents-watchdog status --all")).map((u) => u.message ?? "").join("\n");
		expect(all).toMatch(/Set by you \(value, source\):\n(?:.*\n)*? {2}main\.thinking +"high" +user/);
		expect(all).not.toMatch(/^Defaults:/m);
		const everything = (await cli.run("/subagents-watchdog status --settings")).map((u) => u.message ?? "").join("\n");
		expect(everything).toMatch(/^Defaults: /m);
	} finally {
		await cli.stop();
	}
});
