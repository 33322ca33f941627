// What the permission arbiter is really sent, through the real `pi --mode rpc` (issue 23, item
// 12): a child's `write` of a `.env` file whose first line is a secret, and an `edit` whose
// newText adds one, reach the arbiter with the values redacted.
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { wd, writeJson } from "../../support/settings-files.ts";

const SALT = "pl41nS4ltV4lueF0rTheT3st";
const SEED = "s33dV4lueInAnEditNewText";
const firstUser = (r: ChatRequest) => textOf(r.messages.find((m) => m.role === "user")?.content);

/** Parent: "call {json}". Child: "WRITE-ENV" writes .env, "EDIT-ENV" edits it. The arbiter denies. */
function script(request: ChatRequest): Reply {
	const first = firstUser(request);
	if (first.startsWith("call ")) return subagentCallScript(request);
	if (request.tools?.some((t) => t.function.name === "permission_decision"))
		return { toolCalls: [{ name: "permission_decision", args: { decision: "deny", reason: "not needed" } }] };
	if (request.tools?.some((t) => t.function.name === "watchdog_warn")) return { text: "Nothing to report." };
	if (request.messages.at(-1)?.role === "tool") return { text: "child finished" };
	if (first.includes("WRITE-ENV"))
		return { toolCalls: [{ name: "write", args: { path: ".env", content: `SIGNING_SALT=${SALT}\nDEBUG=1\n` } }] };
	if (first.includes("EDIT-ENV"))
		return {
			toolCalls: [
				{ name: "edit", args: { path: "README.md", edits: [{ oldText: "hi", newText: `hi\nAPP_SEED=${SEED}` }] } },
			],
		};
	return { text: "plain answer" };
}

let cli: CliSession;
beforeAll(async () => {
	cli = await startCli({
		script,
		cwd: makeGitRepo({ "README.md": "hi\n" }),
		userSettings: wd({ enabled: true, main: { model: "local/reviewer" }, children: { enabled: true } }),
		args: ["--tools", "read,bash,edit,write,subagent"],
	});
	writeJson(join(cli.agentDir, "extensions", "subagent", "config.json"), {
		permissions: { rules: { write: "ask", edit: "ask" } },
	});
});
afterAll(async () => {
	await cli?.stop();
});

it("sends the arbiter a write's and an edit's arguments with the .env values redacted", async () => {
	await cli.run(`call ${JSON.stringify({ agent: "worker", task: "WRITE-ENV" })}`, 90_000);
	await cli.run(`call ${JSON.stringify({ agent: "worker", task: "EDIT-ENV" })}`, 90_000);
	const asks = cli.server.requests
		.filter((r) => r.tools?.some((t) => t.function.name === "permission_decision"))
		.map(firstUser);
	expect(asks).toHaveLength(2);
	expect(asks[0]).toMatch(/Tool: write[\s\S]*content: SIGNING_SALT=\[redacted\]/);
	expect(asks[1]).toMatch(/Tool: edit[\s\S]*APP_SEED=\[redacted\]/);
	for (const text of asks) for (const secret of [SALT, SEED]) expect(text).not.toContain(secret.slice(4, 14));
});
