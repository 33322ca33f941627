// Through the real `pi --mode rpc` CLI: the repository's core.fsmonitor and its post-checkout
// hook write a marker when git runs them. A bash run (the change gate's git status) and a
// parallel launch (worktrees made, landed, removed) must leave no marker; plain git proves the
// trap works.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { tempDir } from "../../support/temp.ts";

/** The latest prompt (the parent gets two; a child one, its task). */
const lastUser = (r: ChatRequest) => textOf(r.messages.filter((m) => m.role === "user").at(-1)?.content);

function script(request: ChatRequest): Reply {
	const first = lastUser(request);
	const last = request.messages.at(-1);
	if (first.startsWith("call ")) return subagentCallScript(request);
	if (first.startsWith("BASH-RUN"))
		return last?.role === "tool"
			? { text: "ran" }
			: { toolCalls: [{ name: "bash", args: { command: "echo changed > a.txt" } }] };
	for (const [marker, file] of [
		["TASK-A", "a.txt"],
		["TASK-B", "b.txt"],
	]) {
		if (first.includes(marker))
			return last?.role === "tool"
				? { text: `${marker} done` }
				: { toolCalls: [{ name: "write", args: { path: file, content: `${marker}\n` } }] };
	}
	return { text: "plain answer" };
}

/** A repository whose fsmonitor and post-checkout hook append to the returned log. */
function trappedRepo(): { repo: string; marked: () => string } {
	const repo = makeGitRepo({ "a.txt": "a\n", "b.txt": "b\n" });
	const log = join(tempDir("pi-watchdog-marks-"), "marks.log");
	const fsmonitor = join(tempDir("pi-watchdog-prog-"), "fsmonitor");
	writeFileSync(fsmonitor, `#!/bin/sh\necho fsmonitor >> '${log}'\n`);
	chmodSync(fsmonitor, 0o755);
	git(repo, "config", "core.fsmonitor", fsmonitor);
	writeFileSync(join(repo, ".git", "hooks", "post-checkout"), `#!/bin/sh\necho post-checkout >> '${log}'\n`);
	chmodSync(join(repo, ".git", "hooks", "post-checkout"), 0o755);
	return { repo, marked: () => (existsSync(log) ? readFileSync(log, "utf8") : "") };
}

describe("the repository's own programs through pi --mode rpc", () => {
	let cli: CliSession | undefined;
	afterEach(async () => {
		await cli?.stop().catch(() => {});
		cli = undefined;
	});

	it("the trap works under plain git", () => {
		const { repo, marked } = trappedRepo();
		git(repo, "status", "--porcelain");
		git(repo, "worktree", "add", "--detach", "-q", join(tempDir("pi-watchdog-wt-"), "w"));
		expect(marked()).toMatch(/fsmonitor/);
		expect(marked()).toMatch(/post-checkout/);
	});

	it("runs neither fsmonitor nor a hook in a bash run or a parallel launch", async () => {
		const { repo, marked } = trappedRepo();
		cli = await startCli({ script, cwd: repo, args: ["--tools", "read,bash,edit,write,subagent"] });
		await cli.run("BASH-RUN change a.txt", 60_000);
		expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("changed\n");
		const launch = {
			tasks: [
				{ agent: "worker", task: "TASK-A write a.txt" },
				{ agent: "worker", task: "TASK-B write b.txt" },
			],
		};
		await cli.run(`call ${JSON.stringify(launch)}`, 120_000);
		const entries = (await cli.client.getEntries()).entries as any[];
		const result = entries
			.filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "subagent")
			.at(-1);
		expect(textOf(result?.message.content)).toMatch(/TASK-A done[\s\S]*TASK-B done/);
		expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("TASK-A\n");
		expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("TASK-B\n");
		expect(git(repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
		expect(marked()).toBe("");
	});
});
