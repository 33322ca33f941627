// Through the real `pi` CLI in RPC mode: a child launched with `cwd` set to the folder above the
// parent's project. Its own reviewer and the stopped-subtree verifier both try `read secret.txt` (a
// file in that folder, outside the project): neither may get its content, and the verifier
// is told it looks in the parent's project. Then the history side: a worktree child's
// permission decision and the deny line of a child whose folder name is ~1,000 control
// characters are both found by `history --kind permission` in the project.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { wd, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

const SECRET = "TOP-SECRET-CONTENT-4711";
const firstUser = (r: ChatRequest) => textOf(r.messages.find((m) => m.role === "user")?.content);
const lastUser = (r: ChatRequest) => textOf(r.messages.filter((m) => m.role === "user").at(-1)?.content);
const toolTexts = (r: ChatRequest) => r.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content));

/** The reviewer and the verifier read secret.txt first; children write the file their task names. */
function script(request: ChatRequest): Reply {
	const names = request.tools?.map((t) => t.function.name) ?? [];
	const done = request.messages.at(-1)?.role === "tool";
	if (lastUser(request).startsWith("call ")) return subagentCallScript(request);
	if (names.includes("permission_decision"))
		return { toolCalls: [{ name: "permission_decision", args: { decision: "deny", reason: "not for this task" } }] };
	if (
		names.includes("read") &&
		(names.includes("watchdog_warn") || firstUser(request).startsWith("Verify the stopped children"))
	) {
		return done ? { text: "Nothing to report." } : { toolCalls: [{ name: "read", args: { path: "secret.txt" } }] };
	}
	const file = /WRITE (\S+)/.exec(firstUser(request))?.[1];
	if (file)
		return done
			? { text: `Wrote ${file}.` }
			: { toolCalls: [{ name: "write", args: { path: file, content: "from the child\n" } }] };
	return { text: "plain answer" };
}

const SETTINGS = wd({
	enabled: true,
	main: { model: "local/reviewer" },
	children: { enabled: true },
	lsp: { enabled: false },
});
let cli: CliSession | undefined;
afterEach(async () => {
	await cli?.stop().catch(() => {});
	cli = undefined;
});

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 40_000) => {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (await check()) return;
		await new Promise((r) => setTimeout(r, 150));
	}
	throw new Error(`timed out waiting for ${what}`);
};

it("keeps the child's reviewer and the verifier in the parent's project when the launch names the folder above it", async () => {
	// Outside any repository a launch may name any folder (inside one, a cwd outside it is refused).
	const outer = tempDir("pi-watchdog-outer-");
	writeFileSync(join(outer, "secret.txt"), `${SECRET}\n`);
	const project = join(outer, "project");
	mkdirSync(project);
	writeFileSync(join(project, "README.md"), "hi\n");
	cli = await startCli({
		script,
		cwd: project,
		userSettings: SETTINGS,
		args: ["--tools", "read,bash,edit,write,subagent"],
	});
	const c = cli;
	await c.run(`call ${JSON.stringify({ agent: "worker", task: "WRITE note.txt", cwd: outer })}`, 90_000);
	expect(readFileSync(join(outer, "note.txt"), "utf8")).toBe("from the child\n");
	const verifier = () => c.server.requests.filter((r) => firstUser(r).startsWith("Verify the stopped children"));
	await until("the verifier's read", () => verifier().some((r) => toolTexts(r).length > 0));
	const reviewerReads = c.server.requests
		.filter((r) => r.tools?.some((t) => t.function.name === "watchdog_warn"))
		.flatMap(toolTexts);
	const verifierReads = verifier().flatMap(toolTexts);
	expect(verifierReads.length).toBeGreaterThan(0);
	expect(reviewerReads.length).toBeGreaterThan(0);
	for (const text of [...reviewerReads, ...verifierReads]) expect(text).not.toContain(SECRET);
	expect(firstUser(verifier()[0])).toContain(`outside this project (${project})`);
});

it("files a worktree child's and a control-character folder's permission lines under the project", async () => {
	const repo = makeGitRepo({ "README.md": "hi\n" });
	// Five folders of 200 control characters each: about 1,000 in the child's cwd.
	const names = Array.from({ length: 5 }, (_, i) => String.fromCharCode(1 + i).repeat(199) + String.fromCharCode(0x1f));
	const odd = join(repo, ...names);
	mkdirSync(odd, { recursive: true });
	cli = await startCli({
		script,
		cwd: repo,
		userSettings: SETTINGS,
		args: ["--tools", "read,bash,edit,write,subagent"],
	});
	writeJson(join(cli.agentDir, "extensions", "subagent", "config.json"), { permissions: { rules: { write: "ask" } } });
	// Two writers side by side: each runs in its own worktree.
	await cli.run(
		`call ${JSON.stringify({
			tasks: [
				{ agent: "worker", task: "WRITE a.txt" },
				{ agent: "worker", task: "WRITE b.txt" },
			],
		})}`,
		120_000,
	);
	await cli.run(`call ${JSON.stringify({ agent: "worker", task: "WRITE odd.txt", cwd: odd })}`, 90_000);
	const history = (await cli.run("/subagents-watchdog history --kind permission --limit 50"))
		.map((u) => u.message)
		.join("\n");
	expect(history.match(/write denied by the arbiter/g)?.length).toBe(3);
});
