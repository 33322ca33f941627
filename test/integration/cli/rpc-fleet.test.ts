// The fleet view against real `pi --mode rpc` sessions sharing one agent dir and one scripted
// model: a session stopped on an announced step is idle and `pi-watchdog fleet --nudge` delivers
// the nudge through its mailbox (the model receives it and the row says delivered); a session
// that asked leave to deploy is waiting and is not nudged; a finished one is done.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatRequest, startScriptedServer, type ScriptedServer, textOf } from "../../support/openai-server.ts";
import { type CliSession, REPO_ROOT, startCli } from "../../support/pi-cli.ts";
import { runProcess } from "../../support/run-process.ts";
import { tempDir } from "../../support/temp.ts";

const NUDGE_MARK = "Next step:";

function reply(request: ChatRequest) {
	const last = textOf(request.messages.at(-1)?.content);
	if (last.includes(NUDGE_MARK)) return { text: "Running the tests now as you say." };
	if (last.includes("Fix the parser")) return { text: "I found the bug in parse.ts. Let me run the tests now." };
	if (last.includes("Prepare the release"))
		return { text: "Everything is ready. Shall I deploy to production? Please approve." };
	return { text: "Hello! The task is complete." };
}

async function allSettled(agentDir: string, count: number): Promise<void> {
	const dir = join(agentDir, "watchdog", "live");
	const deadline = Date.now() + 20_000;
	while (Date.now() < deadline) {
		// A session registers at its first mailbox poll (half a second in): the folder may not be there yet.
		const entries = (existsSync(dir) ? readdirSync(dir) : [])
			.filter((n) => n.endsWith(".json"))
			.map((n) => JSON.parse(readFileSync(join(dir, n), "utf8")));
		if (entries.length === count && entries.every((e) => e.busy === false && e.file)) return;
		await new Promise((r) => setTimeout(r, 100));
	}
	throw new Error("the live sessions did not register as idle");
}

describe("pi-watchdog fleet with live pi --mode rpc sessions", () => {
	const agentDir = tempDir("fleet-rpc-agent-");
	let server: ScriptedServer;
	const sessions: CliSession[] = [];

	beforeAll(async () => {
		server = await startScriptedServer(reply);
		for (const prompt of ["Fix the parser in parse.ts", "Prepare the release", "Say hello"]) {
			const cli = await startCli({ script: reply, server, agentDir, session: true, cwd: tempDir("fleet-rpc-cwd-") });
			sessions.push(cli);
			await cli.run(prompt);
		}
		await allSettled(agentDir, 3);
	}, 120_000);

	afterAll(async () => {
		for (const s of sessions) await s.stop().catch(() => {});
		await server?.close();
	});

	it("lists idle, waiting and done; --nudge delivers to the idle one only, confirmed by its ack", async () => {
		const before = server.requests.length;
		const ran = await runProcess(
			process.execPath,
			[resolve(REPO_ROOT, "bin/pi-watchdog.mjs"), "fleet", "--nudge", "--json", "--stall", "0", "--no-claude"],
			{ env: { ...process.env, PI_CODING_AGENT_DIR: agentDir }, timeoutMs: 120_000 },
		);
		expect(ran.stderr).toBe("");
		const pass = JSON.parse(ran.stdout);
		expect(typeof pass.at).toBe("string");
		const byCwd = new Map(pass.sessions.map((s: { cwd: string }) => [s.cwd, s]));
		const [idle, waiting, done] = sessions.map((s) => byCwd.get(s.cwd) as Record<string, any>);
		expect(idle).toMatchObject({
			state: "idle",
			kind: "announced",
			delivery: { outcome: "delivered", via: "mailbox" },
		});
		expect(idle.live.pid).toBeGreaterThan(0);
		expect(waiting).toMatchObject({ state: "waiting", kind: "sign-off" });
		expect(waiting.delivery).toBeUndefined();
		expect(done).toMatchObject({ state: "done" });
		expect(done.delivery).toBeUndefined();

		// The idle session's model gets the nudge: the goal, where it stopped, the next step.
		const deadline = Date.now() + 30_000;
		let nudged: ChatRequest | undefined;
		while (!nudged && Date.now() < deadline) {
			nudged = server.requests.slice(before).find((r) => textOf(r.messages.at(-1)?.content).includes(NUDGE_MARK));
			if (!nudged) await new Promise((r) => setTimeout(r, 100));
		}
		const text = textOf(nudged?.messages.at(-1)?.content);
		expect(text).toContain("Fix the parser in parse.ts");
		expect(text).toContain("Let me run the tests now.");
		expect(server.requests.slice(before).every((r) => !textOf(r.messages.at(-1)?.content).includes("release"))).toBe(
			true,
		);

		// Every nudge is a history line under the source fleet, with no transcript text.
		const history = readFileSync(join(agentDir, "watchdog", "history.jsonl"), "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l));
		const fleet = history.filter((h) => h.source === "fleet");
		expect(fleet.some((h) => h.kind === "fleet")).toBe(true);
		expect(fleet.find((h) => h.kind === "nudge")).toMatchObject({ outcome: "delivered", session: idle.id });
	}, 180_000);

	it("the same pass from inside Pi: /subagents-watchdog fleet shows the waiting session first-class", async () => {
		const out = await sessions[2]?.run("/subagents-watchdog fleet --stall 0 --no-claude");
		const text = out?.map((n) => n.message).join("\n") ?? "";
		expect(text).toMatch(/^Fleet · /);
		expect(text).toContain("WAITING");
	}, 60_000);
});

describe("pi-watchdog fleet --nudge with a decider model (fleet.model)", () => {
	const agentDir = tempDir("fleet-decider-agent-");
	let server: ScriptedServer;
	const sessions: CliSession[] = [];
	const isDecider = (r: ChatRequest) =>
		r.messages.some(
			(m) => (m.role === "system" || m.role === "developer") && textOf(m.content).includes("several coding agents"),
		);

	function script(request: ChatRequest) {
		if (isDecider(request)) {
			const input = textOf(request.messages.at(-1)?.content);
			const ids = [...input.matchAll(/^## Session (\S+)$/gm)].map((m) => m[1]);
			const parser = ids.find((id) =>
				input.split(`## Session ${id}`)[1]?.split("## Session ")[0]?.includes("Fix the parser"),
			);
			return {
				text: JSON.stringify(
					ids.map((id) =>
						id === parser
							? {
									id,
									action: "NUDGE",
									message: "Run npm test now (decider's words). Next step: run it.",
									reason: "announced",
								}
							: { id, action: "SKIP", reason: "publishing needs the user", signoff: true },
					),
				),
			};
		}
		const last = textOf(request.messages.at(-1)?.content);
		if (last.includes("decider's words")) return { text: "Running it." };
		if (last.includes("Fix the parser")) return { text: "Found the bug. Let me run the tests now." };
		return { text: "The package is built. Let me run npm publish now." };
	}

	beforeAll(async () => {
		server = await startScriptedServer(script);
		mkdirSync(join(agentDir, "watchdog"), { recursive: true });
		writeFileSync(join(agentDir, "watchdog", "PLAYBOOK.md"), "HOUSE-RULE-MARK: never publish for me.");
		for (const prompt of ["Fix the parser in parse.ts", "Build the package"]) {
			const cli = await startCli({
				script,
				server,
				agentDir,
				session: true,
				cwd: tempDir("fleet-decider-cwd-"),
				userSettings: { subagents: { watchdog: { fleet: { model: "local/main" } } } },
			});
			sessions.push(cli);
			await cli.run(prompt);
		}
		await allSettled(agentDir, 2);
	}, 120_000);

	afterAll(async () => {
		for (const s of sessions) await s.stop().catch(() => {});
		await server?.close();
	});

	it("asks the model once for the pass, nudges with its words, and shows its sign-off as waiting", async () => {
		const ran = await runProcess(
			process.execPath,
			[resolve(REPO_ROOT, "bin/pi-watchdog.mjs"), "fleet", "--nudge", "--json", "--stall", "0", "--no-claude"],
			{ env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" }, timeoutMs: 120_000 },
		);
		const pass = JSON.parse(ran.stdout);
		const byCwd = new Map(pass.sessions.map((s: { cwd: string }) => [s.cwd, s]));
		const [parser, publish] = sessions.map((s) => byCwd.get(s.cwd) as Record<string, any>);
		const decided = server.requests.filter(isDecider);
		expect(decided).toHaveLength(1);
		const input = textOf(decided[0]?.messages.at(-1)?.content);
		expect(input).toContain("HOUSE-RULE-MARK");
		expect(input).toMatch(/<<<DATA [0-9a-f]+: end of the agent's last message>>>/);
		expect(parser).toMatchObject({ state: "idle", delivery: { outcome: "delivered", via: "mailbox" } });
		expect(publish).toMatchObject({ state: "waiting", delivery: { outcome: "skipped" } });
		const deadline = Date.now() + 30_000;
		while (
			!server.requests.some((r) => textOf(r.messages.at(-1)?.content).includes("decider's words")) &&
			Date.now() < deadline
		)
			await new Promise((r) => setTimeout(r, 100));
		expect(server.requests.some((r) => textOf(r.messages.at(-1)?.content).includes("decider's words"))).toBe(true);
	}, 180_000);
});
