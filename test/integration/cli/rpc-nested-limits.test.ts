// Children that launch children, through the real `pi --mode rpc` (issue 30): a child may
// launch its own (depth 2); a launch past `children.maxDepth` or an agent file's `maxDepth`
// is refused before anything starts; and nothing a child or its agent file says loosens the
// level above: the main session's launch rules, a `cwd` outside its repository.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import {
	historyLines as fullHistory,
	launchTask,
	nestedScript,
	requestsFor,
	writeAgent,
} from "../../support/nested-cli.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";
import { callSubagent } from "../../support/subagent-cli.ts";

describe("nested launches through pi --mode rpc", () => {
	// One `pi` for these tests (a start costs about a second): each writes the agent files its launch
	// needs (they are read again at each launch), names its files and tasks apart, and reads only the
	// history lines its own launch added.
	let shared: CliSession | undefined;
	let mark = 0;
	beforeAll(async () => {
		shared = await startCli({
			script: nestedScript,
			cwd: makeGitRepo({ "README.md": "hi\n" }),
			args: ["--tools", "read,bash,edit,write,subagent"],
			userSettings: wd({
				enabled: false,
				rules: { action: "block", roleModels: { tester: { deny: ["local/reviewer*"], note: "testers run cheap" } } },
			}),
		});
	});
	afterAll(async () => {
		await shared?.stop().catch(() => {});
	});
	const historyFile = () => join((shared as CliSession).agentDir, "watchdog", "history.jsonl");
	beforeEach(() => {
		mark = existsSync(historyFile()) ? fullHistory(shared as CliSession).length : 0;
	});
	const start = async () => shared as CliSession;
	/** The history lines since this test began. */
	const history = (c: CliSession) => fullHistory(c).slice(mark);

	it("a child launches its own child (depth 2), whose write lands in the user's tree", async () => {
		const c = await start();
		writeAgent(c, "lead");
		writeAgent(c, "tester");
		const text = await callSubagent(c, {
			agent: "lead",
			task: launchTask({ agent: "tester", task: "WRITE nested.txt" }),
		});
		expect(text).toMatch(/## lead \(lead, local\/main\): done/);
		expect(text).toMatch(/SAW: Run \S+\n## tester \(tester, local\/main\): done/);
		expect(readFileSync(join(c.cwd, "nested.txt"), "utf8")).toBe("nested.txt\n");
		const launches = history(c).filter((l) => l.kind === "launch");
		expect(launches.map((l) => l.role ?? "main")).toEqual(["lead", "main"]);
	});

	it("refuses a launch at depth 3 before anything starts, and one an agent file's maxDepth forbids", async () => {
		const c = await start();
		writeAgent(c, "lead");
		writeAgent(c, "shallow", { maxDepth: "1" });
		writeAgent(c, "tester");
		const deep = await callSubagent(c, {
			agent: "lead",
			task: launchTask({ agent: "lead", task: launchTask({ agent: "tester", task: "WRITE deep.txt" }) }),
		});
		expect(deep).toMatch(
			/SAW: not launched: this agent \(lead > lead\) is at depth 2, so its children would be at depth 3, and children.maxDepth is 2\. Nothing was started/,
		);
		expect(requestsFor(c, "WRITE deep.txt")).toHaveLength(0);
		expect(existsSync(join(c.cwd, "deep.txt"))).toBe(false);
		const lowered = await callSubagent(c, {
			agent: "shallow",
			task: launchTask({ agent: "tester", task: "WRITE low.txt" }),
		});
		expect(lowered).toMatch(/SAW: not launched: .*an agent file above it sets maxDepth 1/);
		expect(requestsFor(c, "WRITE low.txt")).toHaveLength(0);
	});

	it("a grandchild whose agent file asks for a model the main session's rules deny is blocked", async () => {
		const c = await start();
		writeAgent(c, "lead");
		writeAgent(c, "tester", { model: "local/reviewer" });
		const text = await callSubagent(c, {
			agent: "lead",
			task: launchTask({ agent: "tester", task: "WRITE ruled.txt" }),
		});
		expect(text).toMatch(/SAW: Not launched: a launch rule blocks this child/);
		expect(text).toContain('tester on local/reviewer:off breaks rules.roleModels.tester.deny "local/reviewer*"');
		expect(requestsFor(c, "WRITE ruled.txt")).toHaveLength(0);
		const decision = history(c).find((l) => l.kind === "launch-rule");
		expect(decision).toMatchObject({ decision: "blocked", role: "lead" });
	});

	it("a grandchild's cwd outside the repository is refused, as the child's own would be", async () => {
		const c = await start();
		writeAgent(c, "lead");
		writeAgent(c, "tester");
		const text = await callSubagent(c, {
			agent: "lead",
			task: launchTask({ agent: "tester", task: "WRITE out.txt", cwd: ".." }),
		});
		expect(text).toMatch(/SAW: cwd "\.\." is \S+, outside this session's repository/);
		expect(requestsFor(c, "WRITE out.txt")).toHaveLength(0);
	});

	it("a child's own launches are foreground only", async () => {
		const c = await start();
		writeAgent(c, "lead");
		writeAgent(c, "tester");
		const text = await callSubagent(c, {
			agent: "lead",
			task: launchTask({ agent: "tester", task: "WRITE bg.txt", async: true }),
		});
		expect(text).toMatch(/SAW: not launched: a child agent's own launches run in the foreground/);
		expect(requestsFor(c, "WRITE bg.txt")).toHaveLength(0);
	});

	it("a grandchild runs under its parent's tool permissions: its own agent file cannot lift a deny", async () => {
		const c = await start();
		writeAgent(c, "lead", { permission: "\n  write: deny" });
		writeAgent(c, "tester", { permission: "\n  write: allow" });
		const text = await callSubagent(c, {
			agent: "lead",
			task: launchTask({ agent: "tester", task: "WRITE denied.txt" }),
		});
		expect(text).toMatch(/## tester \(tester, local\/main\): done/);
		expect(existsSync(join(c.cwd, "denied.txt"))).toBe(false);
		const told = requestsFor(c, "WRITE denied.txt").at(-1);
		expect(told?.messages.map((m) => JSON.stringify(m.content)).join("\n")).toMatch(
			/Blocked by the permission rule \\"write\\": \\"deny\\" \(agent file \S*lead\.md\)/,
		);
		expect(history(c).find((l) => l.kind === "permission")).toMatchObject({ role: "tester", decision: "deny" });
	});

	it("a grandchild's watchdog.configure reaches the main session's user, and one that lowers oversight is refused", async () => {
		const c = await start();
		writeAgent(c, "lead");
		writeAgent(c, "tester");
		await c.run("/subagents-watchdog on");
		const before = readFileSync(join(c.agentDir, "settings.json"), "utf8");
		const notices = await c.run(
			`call ${JSON.stringify({
				agent: "lead",
				task: launchTask({
					agent: "tester",
					task: `CONFIGURE ${JSON.stringify({ scope: "user", enabled: false })}`,
				}),
			})}`,
			60_000,
		);
		expect(readFileSync(join(c.agentDir, "settings.json"), "utf8")).toBe(before);
		const refused = notices.find((n) => /Refused a change/.test(n.message ?? ""));
		expect(refused?.message).toMatch(
			/^Refused a change the tester child agent asked for, because it lowers the watchdog's oversight: turns the main watchdog off\./,
		);
		const entries = (await c.client.getEntries()).entries as any[];
		const result = entries.filter((e) => e.type === "message" && e.message.role === "toolResult").at(-1);
		expect(JSON.stringify(result?.message.content)).toMatch(/TOLD: Not changed: [\s\S]*The user has been told/);
	});
});
