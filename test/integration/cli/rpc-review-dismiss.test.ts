// `/subagents-watchdog review` and `dismiss` through the real `pi --mode rpc`: a failed review
// leaves its change pending, `review` covers it on demand (its high finding starts a run that
// answers it), and `dismiss` marks the finding as seen.
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, textOf } from "../../support/openai-server.ts";
import { startCli, waitForEvent } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";

it("reviews the pending changes on demand, and dismisses a finding", async () => {
	const repo = makeGitRepo({ "a.txt": "a\n" });
	let reviewerCalls = 0;
	const script = (req: ChatRequest) => {
		const last = req.messages.at(-1);
		if (req.model === "reviewer") {
			reviewerCalls++;
			if (reviewerCalls === 1) return { status: 503, error: "upstream overloaded" };
			if (last?.role === "tool") return { text: "Reported." };
			return {
				toolCalls: [
					{
						name: "watchdog_warn",
						args: {
							summary: "a.txt lost its only line",
							evidence: "a.txt is now empty",
							recommendedAction: "Restore the line",
							importance: "high",
							severity: "blocker",
						},
					},
				],
			};
		}
		if (textOf(last?.content).includes("The watchdog reviewed this run")) return { text: "Restoring a.txt." };
		if (last?.role === "tool") return { text: "done" };
		return { toolCalls: [{ name: "write", args: { path: "a.txt", content: "" } }] };
	};
	const cli = await startCli({
		cwd: repo,
		script,
		userSettings: wd({ enabled: true, main: { model: "local/reviewer" }, lsp: { enabled: false } }),
	});
	const say = async (cmd: string) => (await cli.run(cmd)).map((u) => u.message ?? "").join("\n");
	try {
		await cli.run("empty a.txt", 60_000);
		expect(await say("/subagents-watchdog status --settings")).toMatch(
			/Pending: 1 path\(s\), review failed \(provider\): a\.txt/,
		);

		const mark = cli.events.length;
		expect(await say("/subagents-watchdog review")).toBe(
			"Reviewed 1 path(s): 1 finding(s) sent to the agent, 0 shown to you.",
		);
		// The finding starts a run that answers it.
		await waitForEvent(cli.events, mark, (e) => e.type === "agent_settled", 30_000);
		expect(await cli.client.getLastAssistantText()).toBe("Restoring a.txt.");
		expect(await say("/subagents-watchdog review")).toBe("Nothing pending: every change so far was reviewed.");

		const status = await say("/subagents-watchdog status --settings");
		expect(status).toMatch(/1\. blocker \(sent to the agent\) \[reviewer\] a\.txt lost its only line/);
		expect(await say("/subagents-watchdog dismiss 1")).toBe(
			"Dismissed 1 finding(s); they will not be raised again:\n- a.txt lost its only line",
		);
		expect(await say("/subagents-watchdog status --settings")).toMatch(
			/1\. blocker \(dismissed\) \[reviewer\] a\.txt lost its only line/,
		);
		expect(await say("/subagents-watchdog dismiss 1")).toMatch(/There is no open finding 1/);
		const history = await say("/subagents-watchdog history --json --limit 20");
		const events = history
			.split("\n")
			.filter((l) => l.startsWith("{"))
			.map((l) => JSON.parse(l));
		expect(events.filter((e) => e.kind === "review").map((e) => [e.trigger, e.outcome])).toEqual([
			["command", "findings"],
			["boundary", "failed"],
		]);
		expect(events.filter((e) => e.kind === "finding").map((e) => e.fate)).toEqual(["dismissed", "sent to the agent"]);
	} finally {
		await cli.stop();
	}
});
