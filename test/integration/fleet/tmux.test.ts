// A Pi session in a tmux pane without pi-watchdog: the fleet finds its pane from the process tree
// and `tmux list-panes`, types the nudge into that pane, and the model receives it. Its own tmux
// server (TMUX_TMPDIR in a temp folder), so no one's tmux is touched.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ChatRequest, startScriptedServer, type ScriptedServer, textOf } from "../../support/openai-server.ts";
import { PI_CLI, REPO_ROOT, writeModelsJson } from "../../support/pi-cli.ts";
import { QUIET_PI_SETTINGS } from "../../support/pi-session.ts";
import { runProcess } from "../../support/run-process.ts";
import { userSettingsPath, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

const NUDGE_MARK = "Next step:";

function reply(request: ChatRequest) {
	const last = textOf(request.messages.at(-1)?.content);
	if (last.includes(NUDGE_MARK)) return { text: "Running the tests now." };
	return { text: "I found the bug in parse.ts. Let me run the tests now." };
}

async function until<T>(what: string, get: () => T | undefined, ms = 60_000): Promise<T> {
	const deadline = Date.now() + ms;
	while (Date.now() < deadline) {
		const value = get();
		if (value !== undefined) return value;
		await new Promise((r) => setTimeout(r, 200));
	}
	throw new Error(`timed out waiting for ${what}`);
}

describe("fleet --nudge into a tmux pane", () => {
	const tmuxDir = tempDir("fleet-tmux-");
	const env: NodeJS.ProcessEnv = { ...process.env, TMUX_TMPDIR: tmuxDir };
	delete env.TMUX;
	let server: ScriptedServer | undefined;

	afterAll(async () => {
		spawnSync("tmux", ["kill-server"], { env });
		await server?.close();
	});

	it("types the nudge into the pane of a Pi session that does not run pi-watchdog", async () => {
		server = await startScriptedServer(reply);
		const agentDir = tempDir("fleet-tmux-agent-");
		const cwd = tempDir("fleet-tmux-cwd-");
		writeModelsJson(agentDir, server.baseUrl, [{ id: "main" }]);
		writeJson(userSettingsPath(agentDir), { defaultProvider: "local", defaultModel: "main", ...QUIET_PI_SETTINGS });
		const path = [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter);
		const command = [
			`PI_CODING_AGENT_DIR='${agentDir}'`,
			"PI_OFFLINE=1",
			`PATH='${path}'`,
			`'${process.execPath}'`,
			`'${PI_CLI}'`,
			"'Fix the parser in parse.ts'",
		].join(" ");
		const started = spawnSync(
			"tmux",
			["new-session", "-d", "-s", "fleet", "-x", "160", "-y", "40", "-c", cwd, command],
			{
				env,
			},
		);
		expect(started.status, String(started.stderr)).toBe(0);
		// The first answer is in the session file: the session stopped on its announced step.
		const sessions = join(agentDir, "sessions");
		await until("the answer in the session file", () => {
			try {
				const file = readdirSync(sessions, { recursive: true }).find((f) => String(f).endsWith(".jsonl"));
				const text = file ? readFileSync(join(sessions, String(file)), "utf8") : "";
				return text.includes("Let me run the tests now") ? true : undefined;
			} catch {
				return undefined;
			}
		});

		const ran = await runProcess(
			process.execPath,
			[resolve(REPO_ROOT, "bin/pi-watchdog.mjs"), "fleet", "--nudge", "--json", "--stall", "0", "--no-claude"],
			{ env: { ...env, PI_CODING_AGENT_DIR: agentDir }, timeoutMs: 120_000 },
		);
		const pass = JSON.parse(ran.stdout);
		const row = pass.sessions.find((s: { cwd?: string }) => s.cwd === cwd);
		expect(row).toMatchObject({ state: "idle", delivery: { outcome: "delivered", via: "tmux" } });
		expect(row.delivery.pane).toMatch(/^%\d+$/);
		const nudged = await until("the nudge at the model", () =>
			server?.requests.find((r) => textOf(r.messages.at(-1)?.content).includes(NUDGE_MARK)),
		);
		expect(textOf(nudged.messages.at(-1)?.content)).toContain("Fix the parser in parse.ts");
	}, 180_000);
});
