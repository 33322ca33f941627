// The watchdog in CI through the real `pi` CLI: `--watchdog-strict` (or `headless.strict`)
// makes print and RPC mode exit 3 when the run ends with an open blocker, here a high finding
// the agent only acknowledged; without it the exit code is Pi's own. `--watchdog-report`
// writes the run's JSON report; a path that cannot take it is said clearly.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { RpcClient } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import {
	type ChatRequest,
	type Reply,
	type ScriptedServer,
	startScriptedServer,
	textOf,
} from "../../support/openai-server.ts";
import { PI_CLI, REPO_ROOT, runPi, waitForEvent, writeModelsJson } from "../../support/pi-cli.ts";
import { QUIET_PI_SETTINGS } from "../../support/pi-session.ts";
import { userSettingsPath, wd, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

const EXTENSION = resolve(REPO_ROOT, "index.ts");
const BLOCKER = {
	summary: "hello.txt lost its greeting",
	evidence: "hello.txt now reads 'bye' although the user asked to keep the greeting",
	recommendedAction: "Restore the greeting in hello.txt",
	importance: "high",
	severity: "blocker",
	category: "missed-constraint",
};

/** The agent writes hello.txt; the reviewer raises `warn` (or nothing); told of it, the agent only acknowledges. */
function script(warn: boolean) {
	return (req: ChatRequest) => {
		const last = req.messages.at(-1);
		if (req.model === "reviewer") {
			if (last?.role === "tool" || !warn) return { text: "Reported." };
			return { toolCalls: [{ name: "watchdog_warn", args: BLOCKER }] };
		}
		if (last?.role === "tool") return { text: "Updated hello.txt." };
		if (textOf(last?.content).includes("The watchdog reviewed this run")) return { text: "Acknowledged." };
		return { toolCalls: [{ name: "write", args: { path: "hello.txt", content: "bye\n" } }] };
	};
}

let server: ScriptedServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

/** An agent folder whose models are the scripted server's, with the watchdog on (and `settings`). */
function agentFor(baseUrl: string, settings: Record<string, unknown> = {}): string {
	const agentDir = tempDir();
	writeModelsJson(agentDir, baseUrl, [{ id: "main" }, { id: "reviewer" }]);
	writeJson(userSettingsPath(agentDir), {
		defaultProvider: "local",
		defaultModel: "main",
		...QUIET_PI_SETTINGS,
		...wd({ enabled: true, lsp: { enabled: false }, main: { model: "local/reviewer" }, ...settings }),
	});
	return agentDir;
}

async function setUp(warn: boolean, settings: Record<string, unknown> = {}) {
	server = await startScriptedServer(script(warn));
	const repo = makeGitRepo({ "hello.txt": "hello\n" });
	const agentDir = agentFor(server.baseUrl, settings);
	return { repo, agentDir };
}

describe("print mode", () => {
	it("exits 3 with --watchdog-strict when a high finding is left open, and writes the report", async () => {
		const { repo, agentDir } = await setUp(true);
		const report = join(tempDir(), "watchdog.json");
		const ran = await runPi(
			["-p", "--no-session", "-e", EXTENSION, "--watchdog-strict", "--watchdog-report", report, "Keep the greeting"],
			{ cwd: repo, agentDir, timeoutMs: 60_000 },
		);
		expect(ran.stdout.trim()).toBe("Acknowledged.");
		expect(ran.stderr).toContain("watchdog: --watchdog-strict: the run ended with 1 open blocker(s):");
		expect(ran.stderr).toContain("finding: hello.txt lost its greeting [main]");
		expect(ran.code).toBe(3);
		const doc = JSON.parse(readFileSync(report, "utf8"));
		expect(doc.schema).toBe(1);
		expect(doc.strict).toBe(true);
		expect(doc.exit).toEqual({ code: 3, reason: "1 open blocker(s)" });
		expect(doc.blockers).toEqual([expect.objectContaining({ kind: "finding", summary: BLOCKER.summary })]);
		expect(doc.reviews).toEqual([
			expect.objectContaining({ trigger: "boundary", outcome: "findings", model: "local/reviewer", paths: 1 }),
		]);
		expect(doc.reviews[0].durationMs).toBeGreaterThanOrEqual(0);
		expect(doc.findings).toEqual([
			expect.objectContaining({ source: "main", importance: "high", fate: "sent to the agent" }),
		]);
		expect(doc.pending).toEqual([]);
		expect(doc.session.mode).toBe("print");
	});

	it("keeps Pi's exit code without the flag, whatever is open", async () => {
		const { repo, agentDir } = await setUp(true);
		const ran = await runPi(["-p", "--no-session", "-e", EXTENSION, "Keep the greeting"], {
			cwd: repo,
			agentDir,
			timeoutMs: 60_000,
		});
		expect(ran.stdout.trim()).toBe("Acknowledged.");
		expect(ran.stderr).not.toContain("open blocker");
		expect(ran.code).toBe(0);
	});

	it("exits 0 under headless.strict when the review is clean, and says so in the report", async () => {
		const { repo, agentDir } = await setUp(false, { headless: { strict: true } });
		const report = join(tempDir(), "r.json");
		const ran = await runPi(["-p", "--no-session", "-e", EXTENSION, `--watchdog-report=${report}`, "Edit it"], {
			cwd: repo,
			agentDir,
			timeoutMs: 60_000,
		});
		expect(ran.code).toBe(0);
		const doc = JSON.parse(readFileSync(report, "utf8"));
		expect(doc.exit).toEqual({ code: 0, reason: "no open blocker" });
		expect(doc.reviews).toEqual([expect.objectContaining({ outcome: "clean" })]);
	});

	it("exits 3 under the headless.strict setting alone", async () => {
		const { repo, agentDir } = await setUp(true, { headless: { strict: true } });
		const ran = await runPi(["-p", "--no-session", "-e", EXTENSION, "Keep the greeting"], {
			cwd: repo,
			agentDir,
			timeoutMs: 60_000,
		});
		expect(ran.code).toBe(3);
	});

	it("says at the start and at the end when the report path cannot be written, and fails the run", async () => {
		const { repo, agentDir } = await setUp(false);
		const missing = join(tempDir(), "no-such-folder", "watchdog.json");
		const ran = await runPi(["-p", "--no-session", "-e", EXTENSION, "--watchdog-report", missing, "Edit it"], {
			cwd: repo,
			agentDir,
			timeoutMs: 60_000,
		});
		const said = ran.stderr.split("\n").filter((l) => l.startsWith("watchdog: --watchdog-report:"));
		expect(said).toHaveLength(2);
		expect(said[0]).toContain("does not exist (the report is written only into an existing folder)");
		expect(existsSync(missing)).toBe(false);
		expect(ran.code).toBe(3);
	});
});

describe("RPC mode", () => {
	/** `pi --mode rpc` with `args`; one prompt, then stdin is closed (a clean quit); resolves with the exit code. */
	async function rpcRun(repo: string, agentDir: string, args: string[]): Promise<number | null> {
		const client = new RpcClient({
			cliPath: PI_CLI,
			cwd: repo,
			env: {
				PI_CODING_AGENT_DIR: agentDir,
				PI_OFFLINE: "1",
				PATH: `${resolve(process.execPath, "..")}:${process.env.PATH}`,
			},
			args: ["-e", EXTENSION, "--no-session", ...args],
		});
		const events: Array<{ type: string }> = [];
		client.onEvent((e) => events.push(e as { type: string }));
		await client.start();
		const child = (client as unknown as { process: import("node:child_process").ChildProcess }).process;
		try {
			await client.prompt("Keep the greeting");
			await waitForEvent(events, 0, (e) => e.type === "agent_settled", 60_000);
			const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
			child.stdin?.end();
			return await exited;
		} finally {
			if (child.exitCode === null) child.kill("SIGKILL");
		}
	}

	it("exits 3 at the end of the session with --watchdog-strict, 0 without it", async () => {
		// The two sessions are independent (each its own server, repository and agent folder): they run side by side.
		const strict = await setUp(true);
		const strictServer = server;
		try {
			const plain = await setUp(true);
			const [strictCode, plainCode] = await Promise.all([
				rpcRun(strict.repo, strict.agentDir, ["--watchdog-strict"]),
				rpcRun(plain.repo, plain.agentDir, []),
			]);
			expect(strictCode).toBe(3);
			expect(plainCode).toBe(0);
		} finally {
			await strictServer?.close();
		}
	});
});

describe("children in print mode", () => {
	const toolResults = (r: ChatRequest) => r.messages.filter((m) => m.role === "tool").length;
	const firstUser = (r: ChatRequest) => textOf(r.messages.find((m) => m.role === "user")?.content);
	const allText = (r: ChatRequest) => r.messages.map((m) => textOf(m.content)).join("\n");

	/** The parent launches a background worker, then `then(step, request)`; the worker writes bg.txt and claims tests pass. */
	async function run(then: (step: number, req: ChatRequest) => Reply | undefined, childSleeps = 0) {
		server = await startScriptedServer((req) => {
			if (req.model === "reviewer") return { text: "clean" };
			const step = toolResults(req);
			if (firstUser(req).startsWith("BG-CLAIM")) {
				const work: Reply[] = [
					...(childSleeps ? [{ toolCalls: [{ name: "bash", args: { command: `sleep ${childSleeps}` } }] }] : []),
					// a command that is not a test: the claim is unbacked (unproven), not contradicted
					{ toolCalls: [{ name: "bash", args: { command: "ls" } }] },
					{ toolCalls: [{ name: "write", args: { path: "bg.txt", content: "bg\n" } }] },
					{ text: "Wrote bg.txt. All tests pass." },
				];
				return work[step] ?? { text: "done" };
			}
			if (step === 0)
				return {
					toolCalls: [{ name: "subagent", args: { agent: "worker", task: "BG-CLAIM write bg.txt", async: true } }],
				};
			return then(step, req) ?? { text: "Launched the worker." };
		});
		const repo = makeGitRepo({ "README.md": "# r\n" });
		const agentDir = agentFor(server.baseUrl);
		const report = join(tempDir(), "watchdog.json");
		const args = ["-p", "--no-session", "-e", EXTENSION, "--tools", "read,bash,edit,write,subagent"];
		const ran = await runPi([...args, "--watchdog-strict", "--watchdog-report", report, "Launch the worker"], {
			cwd: repo,
			agentDir,
			timeoutMs: 90_000,
		});
		return { ran, doc: JSON.parse(readFileSync(report, "utf8")) };
	}

	it("exits 3 when the verification of a stopped child finds its claim unproven", async () => {
		const { ran, doc } = await run((step, req) => {
			if (step !== 1) return undefined;
			const id = /Run (\d{8}-\d{6}-[0-9a-f]{6})/.exec(allText(req))?.[1];
			return { toolCalls: [{ name: "subagent", args: { action: "wait", id, timeoutMs: 60_000 } }] };
		});
		expect(ran.stderr).toMatch(/ {2}child: child worker \(\S+\): unproven \[verify\]/);
		expect(ran.code).toBe(3);
		expect(doc.children).toEqual([
			expect.objectContaining({ outcome: "problems", children: [expect.objectContaining({ verdict: "unproven" })] }),
		]);
	});

	it("exits 3 when a background child is still running as the session ends: it was never verified", async () => {
		const { ran, doc } = await run(() => undefined, 30);
		expect(ran.stderr).toMatch(/ {2}child: background run \S+ had not ended when the session did/);
		expect(ran.code).toBe(3);
		expect(doc.children).toEqual([]);
	});
});
