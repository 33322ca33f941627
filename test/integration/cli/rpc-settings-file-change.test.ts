// The agent changing the watchdog's settings file with its own tools, through the real
// `pi --mode rpc` (issue 23, item 13): a change that lowers oversight is held back (the run is
// still reviewed) until the user accepts it, and the user is told which call made it; a change
// that does not lower oversight is applied and announced; the user's own edit between prompts
// is theirs and simply applies.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { QUIET_PI_SETTINGS } from "../../support/pi-session.ts";
import { userSettingsPath, wd } from "../../support/settings-files.ts";

const isReview = (r: ChatRequest) => r.tools?.some((t) => t.function.name === "watchdog_warn") ?? false;

/** "DO [calls]" (the latest such prompt): the model makes the calls one after another, then says "done". Reviews are clean. */
function script(request: ChatRequest): Reply {
	if (isReview(request)) return { text: "Nothing to report." };
	const at = request.messages.findLastIndex((m) => m.role === "user" && textOf(m.content).startsWith("DO "));
	if (at < 0) return { text: "plain answer" };
	const calls = JSON.parse(textOf(request.messages[at].content).slice(3)) as Array<{
		name: string;
		args: Record<string, unknown>;
	}>;
	const done = request.messages.slice(at).filter((m) => m.role === "tool").length;
	return done < calls.length ? { toolCalls: [calls[done]] } : { text: "done" };
}

describe("pi --mode rpc: the agent's own tools changing the watchdog's settings file", () => {
	let cli: CliSession;
	let settingsPath: string;
	const settingsWith = (watchdog: Record<string, unknown>) =>
		`${JSON.stringify({ defaultProvider: "local", defaultModel: "main", ...QUIET_PI_SETTINGS, ...wd({ main: { model: "local/reviewer" }, ...watchdog }) }, null, 2)}\n`;
	const reviews = () => cli.server.requests.filter(isReview).length;
	const historyOf = (kind: string) =>
		readFileSync(join(cli.agentDir, "watchdog", "history.jsonl"), "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l))
			.filter((e) => e.kind === kind);
	const status = async () => (await cli.run("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");

	beforeAll(async () => {
		cli = await startCli({
			script,
			cwd: makeGitRepo({ "README.md": "hi\n" }),
			userSettings: wd({ enabled: true, main: { model: "local/reviewer" } }),
			args: ["--tools", "read,bash,edit,write,subagent"],
		});
		settingsPath = userSettingsPath(cli.agentDir);
	});
	afterAll(async () => {
		await cli?.stop();
	});

	it("holds back a write that turns the watchdog off: the run is reviewed, the user is told which call did it", async () => {
		const before = reviews();
		const notices = await cli.run(
			`DO ${JSON.stringify([
				{ name: "write", args: { path: "notes.md", content: "first\n" } },
				{ name: "write", args: { path: settingsPath, content: settingsWith({ enabled: false }) } },
				{ name: "write", args: { path: "notes.md", content: "second\n" } },
			])}`,
			60_000,
		);
		expect(readFileSync(settingsPath, "utf8")).toContain('"enabled": false');
		expect(reviews()).toBe(before + 1);
		const held = notices.filter((n) => /held back/i.test(n.message ?? ""));
		expect(held).toHaveLength(1);
		expect(held[0].notifyType).toBe("warning");
		expect(held[0].message).toContain("write call #2 of this run");
		expect(held[0].message).toContain(settingsPath);
		expect(held[0].message).toContain("turns the main watchdog off");
		expect(held[0].message).toContain("/subagents-watchdog settings accept");
		expect(historyOf("settings-file-change").at(-1)).toMatchObject({
			outcome: "held",
			tool: "write",
			call: 2,
			path: settingsPath,
		});
		const labels = cli.ui
			.filter((u) => u.method === "setStatus" && u.statusKey === "watchdog")
			.map((u) => u.statusText);
		expect(labels.at(-1)).toMatch(/settings change held/);
		expect(await status()).toMatch(/held back/);
	});

	it("keeps holding it on the next run, then applies it once the user accepts", async () => {
		const before = reviews();
		const notices = await cli.run(
			`DO ${JSON.stringify([{ name: "write", args: { path: "notes.md", content: "third\n" } }])}`,
			60_000,
		);
		expect(reviews()).toBe(before + 1);
		expect(notices.filter((n) => /held back/i.test(n.message ?? ""))).toEqual([]);
		const accepted = (await cli.run("/subagents-watchdog settings accept")).map((n) => n.message).join("\n");
		expect(accepted).toMatch(/Accepted the change to .*settings\.json/);
		expect(historyOf("settings-file-change").at(-1)).toMatchObject({ outcome: "accepted", path: settingsPath });
		const after = reviews();
		await cli.run(`DO ${JSON.stringify([{ name: "write", args: { path: "notes.md", content: "fourth\n" } }])}`, 60_000);
		expect(reviews()).toBe(after);
	});

	it("applies and announces an agent's change that does not lower oversight", async () => {
		const notices = await cli.run(
			`DO ${JSON.stringify([{ name: "bash", args: { command: `cat > '${settingsPath}' <<'EOF'\n${settingsWith({ enabled: true, stalemateRepeats: 5 })}EOF` } }])}`,
			60_000,
		);
		const shown = notices.find((n) => /changed the watchdog settings/.test(n.message ?? ""));
		expect(shown?.message).toMatch(/bash call #1 of this run/);
		expect(shown?.message).toMatch(/enabled = true/);
		expect(historyOf("settings-file-change").at(-1)).toMatchObject({ outcome: "applied", tool: "bash", call: 1 });
		expect(await status()).toMatch(/stalemateRepeats[^\n]*5/);
	});

	it("takes the user's own edit between prompts as it is", async () => {
		writeFileSync(settingsPath, settingsWith({ enabled: false }));
		const before = reviews();
		const lines = historyOf("settings-file-change").length;
		const notices = await cli.run(
			`DO ${JSON.stringify([{ name: "write", args: { path: "notes.md", content: "fifth\n" } }])}`,
			60_000,
		);
		expect(reviews()).toBe(before);
		expect(notices.filter((n) => /held back|changed the watchdog settings/i.test(n.message ?? ""))).toEqual([]);
		expect(historyOf("settings-file-change")).toHaveLength(lines);
	});
});
