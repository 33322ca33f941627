// The real `pi` CLI in RPC mode, with its agent folder in a temp dir and a models.json that
// points at a scripted server on 127.0.0.1 (started and stopped here). Uses Pi's own RpcClient.
import { existsSync } from "node:fs";
import { delimiter, dirname, resolve } from "node:path";
import { RpcClient } from "@earendil-works/pi-coding-agent";
import { afterEach } from "vitest";
import { startScriptedServer, type Script, type ScriptedServer } from "./openai-server.ts";
import { QUIET_PI_SETTINGS } from "./pi-session.ts";
import { type Ran, runProcess } from "./run-process.ts";
import { readJson, userSettingsPath, withLspOff, writeJson } from "./settings-files.ts";
import { tempDir } from "./temp.ts";

export const REPO_ROOT = resolve(import.meta.dirname, "../..");
export const PI_CLI = resolve(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");

export interface CliOptions {
	script: Script;
	/** Extra user settings (merged over quiet defaults). */
	userSettings?: Record<string, unknown>;
	/**
	 * Write userSettings as given, the LSP pre-pass at its default (on). Otherwise they get
	 * `lsp.enabled: false` unless they name `lsp`.
	 */
	lsp?: boolean;
	cwd?: string;
	agentDir?: string;
	/** Load the extension with `-e` (default) or rely on what is installed in agentDir. */
	loadExtension?: boolean;
	args?: string[];
	/** Models served by the scripted server (provider "local"). */
	models?: Array<{ id: string; reasoning?: boolean }>;
	/** Keep a session file (Pi's default place under the agent dir) instead of `--no-session`. */
	session?: boolean;
	/** A server already running (shared by several sessions; the caller closes it), instead of one for `script`. */
	server?: ScriptedServer;
}

export interface UiRequest {
	method: string;
	message?: string;
	notifyType?: string;
	statusKey?: string;
	statusText?: string;
	[key: string]: unknown;
}

export interface CliSession {
	client: RpcClient;
	server: ScriptedServer;
	cwd: string;
	agentDir: string;
	events: any[];
	ui: UiRequest[];
	/** Sends a prompt (or slash command), waits for what it started to finish, returns new notifies. */
	run(text: string, timeoutMs?: number): Promise<UiRequest[]>;
	stop(): Promise<void>;
}

export function writeModelsJson(
	agentDir: string,
	baseUrl: string,
	models: Array<{ id: string; reasoning?: boolean }>,
): void {
	writeJson(`${agentDir}/models.json`, {
		providers: {
			local: {
				baseUrl,
				api: "openai-completions",
				apiKey: "test-key",
				models: models.map((m) => ({
					id: m.id,
					name: m.id,
					reasoning: m.reasoning ?? false,
					contextWindow: 32000,
					maxTokens: 2048,
				})),
			},
		},
	});
}

export async function startCli(options: CliOptions): Promise<CliSession> {
	const server = options.server ?? (await startScriptedServer(options.script));
	const cwd = options.cwd ?? tempDir("pi-watchdog-cli-cwd-");
	const agentDir = options.agentDir ?? tempDir("pi-watchdog-cli-agent-");
	const models = options.models ?? [{ id: "main" }, { id: "reviewer", reasoning: true }];
	writeModelsJson(agentDir, server.baseUrl, models);
	const existing = existsSync(userSettingsPath(agentDir)) ? readJson(userSettingsPath(agentDir)) : {};
	const settings = {
		...existing,
		defaultProvider: "local",
		defaultModel: models[0].id,
		...QUIET_PI_SETTINGS,
		...options.userSettings,
	};
	writeJson(userSettingsPath(agentDir), options.lsp ? settings : withLspOff(settings));
	const args = [
		...(options.loadExtension === false ? [] : ["-e", resolve(REPO_ROOT, "index.ts")]),
		...(options.session ? [] : ["--no-session"]),
		...(options.args ?? []),
	];
	const client = new RpcClient({
		cliPath: PI_CLI,
		cwd,
		env: { PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", PATH: nodeFirstPath() },
		args,
	});
	const events: any[] = [];
	const ui: UiRequest[] = [];
	client.onEvent((e: any) => {
		events.push(e);
		if (e.type === "extension_ui_request") ui.push(e);
	});
	await client.start();
	return {
		client,
		server,
		cwd,
		agentDir,
		events,
		ui,
		async run(text, timeoutMs = 30_000) {
			const before = ui.length;
			const mark = events.length;
			const disposition = await client.prompt(text);
			if (disposition === "started") await waitForEvent(events, mark, (e) => e.type === "agent_settled", timeoutMs);
			return ui.slice(before).filter((u) => u.method === "notify");
		},
		async stop() {
			await client.stop();
			if (!options.server) await server.close();
		},
	};
}

export async function waitForEvent(
	events: any[],
	start: number,
	pred: (e: any) => boolean,
	timeoutMs: number,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (events.slice(start).some(pred)) return;
		await new Promise((r) => setTimeout(r, 20));
	}
	throw new Error(`timed out after ${timeoutMs} ms waiting for an event`);
}

/** Runs the `pi` CLI once (print mode, `install`, …) with stdin closed, bounded by a timeout. */
export function runPi(args: string[], options: { cwd: string; agentDir: string; timeoutMs?: number }): Promise<Ran> {
	return runProcess(process.execPath, [PI_CLI, ...args], {
		cwd: options.cwd,
		env: { ...process.env, PI_CODING_AGENT_DIR: options.agentDir, PI_OFFLINE: "1" },
		timeoutMs: options.timeoutMs,
	});
}

/** RpcClient spawns `node` from PATH: make it the Node running the tests (22), not the shell's. */
function nodeFirstPath(): string {
	return [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter);
}

/** A CLI for each test of the calling `describe`, stopped after the test: `start()` makes it. */
export function cliForEachTest(options: () => CliOptions): () => Promise<CliSession> {
	let cli: CliSession | undefined;
	afterEach(async () => {
		await cli?.stop().catch(() => {});
		cli = undefined;
	});
	return async () => {
		cli = await startCli(options());
		return cli;
	};
}
