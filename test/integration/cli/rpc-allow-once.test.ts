// The user's word over the permission arbiter, through the real `pi --mode rpc` (issue 30): a
// child's write that an `ask` rule sent to the arbiter is denied; the user allows that exact
// call once with `/subagents-watchdog allow <id>` while the child runs; its next identical
// call runs (once: the one after it is denied again), and history says the user allowed it.
// A rule's deny is never in the book, print mode never allows, and the session reports the
// wait on the arbiter.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "../../support/openai-server.ts";
import { cliForEachTest, runPi } from "../../support/pi-cli.ts";
import { wd, writeJson } from "../../support/settings-files.ts";
import { firstUser, until } from "../../support/subagent-cli.ts";
import { tempDir } from "../../support/temp.ts";

const WRITE = { name: "write", args: { path: "once.txt", content: "allowed by the user\n" } };
/** A file the test makes once the user has allowed the call: the child's wait ends there (30 s at most). */
let gate = "";

/** The arbiter denies every call. The child writes, waits for the user, writes again twice, then answers. */
function script(request: ChatRequest): Reply {
	const first = firstUser(request);
	if (first.startsWith("call ")) return subagentCallScript(request);
	if (request.tools?.some((t) => t.function.name === "permission_decision"))
		return {
			toolCalls: [{ name: "permission_decision", args: { decision: "deny", reason: "not needed for the task" } }],
		};
	if (request.tools?.some((t) => t.function.name === "watchdog_warn")) return { text: "Nothing to report." };
	if (!first.startsWith("RETRY")) return { text: "plain answer" };
	const step = request.messages.filter((m) => m.role === "tool").length;
	const plan: Reply[] = [
		{ toolCalls: [WRITE] },
		{
			toolCalls: [
				{ name: "bash", args: { command: `for i in $(seq 1 300); do [ -f '${gate}' ] && break; sleep 0.1; done` } },
			],
		},
		{ toolCalls: [WRITE] },
		{ toolCalls: [WRITE] },
		{ text: "done" },
	];
	return plan[Math.min(step, plan.length - 1)];
}

const start = cliForEachTest(() => ({
	script,
	cwd: makeGitRepo({ "README.md": "hi\n" }),
	userSettings: wd({ enabled: true, main: { model: "local/reviewer" }, children: { enabled: true } }),
	args: ["--tools", "read,bash,edit,write,subagent"],
}));

it("a denied ask allowed once by the user runs exactly once, recorded as the user's", async () => {
	const c = await start();
	gate = join(tempDir(), "allowed");
	writeJson(join(c.agentDir, "extensions", "subagent", "config.json"), { permissions: { rules: { write: "ask" } } });
	const mark = c.events.length;
	await c.client.prompt(`call ${JSON.stringify({ agent: "worker", task: "RETRY the write" })}`);
	let id = "";
	await until("the denial notice", () => {
		const notice = c.ui.find((u) => /subagents-watchdog allow (\w+)/.test(u.message ?? ""));
		id = /subagents-watchdog allow (\w+)/.exec(notice?.message ?? "")?.[1] ?? "";
		return id !== "";
	});
	const notice = c.ui.find((u) => (u.message ?? "").includes(id));
	expect(notice?.message).toMatch(/^The permission arbiter denied worker's write call: The permission arbiter denied/);
	expect(notice?.notifyType).toBe("warning");
	// a wrong id (as a rule's deny would be) allows nothing
	const wrong = await c.run("/subagents-watchdog allow zzzzz");
	expect(wrong.map((n) => n.message).join("\n")).toMatch(/there is no denied call zzzzz to allow/);
	const listed = await c.run("/subagents-watchdog allow");
	expect(listed.map((n) => n.message).join("\n")).toContain(
		`Denied calls you can allow once:\n- ${id}: worker's write`,
	);
	const allowed = await c.run(`/subagents-watchdog allow ${id}`);
	expect(allowed.map((n) => n.message).join("\n")).toMatch(/^Allowed once: worker's write call/);
	writeFileSync(gate, "");
	await until("the run to settle", () => c.events.slice(mark).some((e) => e.type === "agent_settled"), 60_000);
	expect(readFileSync(join(c.cwd, "once.txt"), "utf8")).toBe("allowed by the user\n");
	const lines = readFileSync(join(c.agentDir, "watchdog", "history.jsonl"), "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l))
		.filter((l) => l.kind === "permission");
	expect(lines.map((l) => `${l.decision} ${l.how}`)).toEqual(["deny arbiter", "approve user", "deny reused"]);
	const child = c.server.requests.filter((r) => firstUser(r).startsWith("RETRY")).at(-1) as ChatRequest;
	const results = child.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content));
	expect(results[2]).not.toMatch(/denied/);
	expect(results[3]).toMatch(/The permission arbiter denied this write call \(the same call was decided earlier/);
	// the identical call after the allowed one was denied again: the stop waits on the user
	const verifications = async () =>
		((await c.client.getEntries()).entries as any[]).filter((e) => e.customType === "watchdog-verification");
	await until("the verification", async () => (await verifications()).length > 0);
	expect((await verifications())[0].data.verdicts).toBe("worker needs-user");
	// the session said it was waiting on the arbiter, and then no longer
	const waits = c.ui.filter((u) => u.statusKey === "watchdog-waiting").map((u) => u.statusText ?? "");
	expect(waits[0]).toBe("worker: waiting on the permission arbiter for write");
	expect(waits.at(-1)).toBe("");
});

it("print mode never allows a denied call", async () => {
	const c = await start();
	const ran = await runPi(
		["-p", "--no-session", "-e", join(import.meta.dirname, "../../../index.ts"), "/subagents-watchdog allow abc12"],
		{
			cwd: c.cwd,
			agentDir: c.agentDir,
		},
	);
	expect(`${ran.stdout}${ran.stderr}`).toMatch(/not allowed: in print mode nobody is there to decide/);
});
