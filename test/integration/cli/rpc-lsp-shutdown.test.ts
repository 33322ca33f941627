// The real `pi` CLI stopped the way a user stops it: the language server the watchdog started,
// and every process under it, go with it.
import { expect, it } from "vitest";
import { groupMembers, waitForGroupGone } from "../../../src/lsp/process-tree.ts";
import { makeGitRepo } from "../../support/git.ts";
import type { ChatRequest } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";

const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ["src"] });

/** A pi session whose write has left a warm language server; its process group id. */
async function sessionWithWarmServer(): Promise<{ cli: CliSession; pid: number }> {
	const repo = makeGitRepo({ "tsconfig.json": TSCONFIG, "src/a.ts": "export const a: number = 1;\n" });
	const script = (req: ChatRequest) => {
		if (req.model === "reviewer") return { text: "clean" };
		if (req.messages.at(-1)?.role === "tool") return { text: "done" };
		return { toolCalls: [{ name: "write", args: { path: "src/a.ts", content: "export const a: number = 2;\n" } }] };
	};
	const cli = await startCli({
		cwd: repo,
		script,
		lsp: true,
		userSettings: wd({ enabled: true, main: { model: "local/reviewer" } }),
	});
	try {
		await cli.run("change a", 60_000);
		const status = (await cli.run("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
		const pid = Number(/state: warm \(pid (\d+)/.exec(status)?.[1]);
		expect(pid).toBeGreaterThan(0);
		expect(groupMembers(pid).length).toBeGreaterThan(0);
		return { cli, pid };
	} catch (error) {
		await cli.stop();
		throw error;
	}
}

it("leaves no language-server process behind when pi exits", async () => {
	const { cli, pid } = await sessionWithWarmServer();
	await cli.stop();
	await waitForGroupGone(pid, 5000);
	expect(groupMembers(pid)).toEqual([]);
});

it("leaves no language-server process behind even when pi is killed outright", async () => {
	const { cli, pid } = await sessionWithWarmServer();
	try {
		// SIGKILL: no shutdown handler runs; the server notices its parent is gone.
		process.kill((cli.client as unknown as { process: { pid: number } }).process.pid, "SIGKILL");
		await waitForGroupGone(pid, 10_000);
		expect(groupMembers(pid)).toEqual([]);
	} finally {
		await cli.stop().catch(() => {});
	}
});
