// The package as npm ships it: `npm pack`, the tarball installed into a fresh project (from the
// npm cache; no network needed once the dependencies are cached), then the real `pi` installs
// and loads the extension from there and runs a boundary review with it, and the installed
// `pi-watchdog` command scans a session. Whatever the extension or the command needs that
// package.json `files` leaves out of the tarball fails here.
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import entry, { createWatchdogExtension as fromEntry } from "../../../index.ts";
import extension, { createWatchdogExtension } from "../../../src/extension.ts";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, textOf } from "../../support/openai-server.ts";
import { REPO_ROOT, runPi, startCli } from "../../support/pi-cli.ts";
import { readJson, userSettingsPath, wd } from "../../support/settings-files.ts";
import { type Ran, runProcess } from "../../support/run-process.ts";
import { tempDir } from "../../support/temp.ts";

/** Node 22 (the one running the tests) first on PATH, for npm and for the bin's `env node`. */
const PATH = [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter);

function run(command: string, args: string[], cwd: string, timeoutMs = 90_000): Promise<Ran> {
	// npm run passes its own settings down as npm_config_*; a global or prefix one would send the
	// install elsewhere.
	const env: NodeJS.ProcessEnv = { ...process.env, PATH };
	for (const key of Object.keys(env))
		if (/^npm_config_(global|prefix|location|dry_run|offline|prefer_online)$/i.test(key)) delete env[key];
	return runProcess(command, args, { cwd, env, timeoutMs });
}

// As Pi's own `pi install npm:…` installs a package: without its peers, which Pi provides to
// extensions. No audit, no funding notice, no install scripts, and no retries against a
// registry that may be out of reach.
const INSTALL_FLAGS = [
	"--ignore-scripts",
	"--no-audit",
	"--no-fund",
	"--legacy-peer-deps",
	"--no-package-lock",
	"--fetch-retries=0",
	"--loglevel=error",
];

let packedFiles: string[] = [];
let project = "";
let installed = "";

beforeAll(async () => {
	const packDir = tempDir("pi-watchdog-pack-");
	// Not --ignore-scripts: `prepack` builds the bundle the tarball ships (dist/pi-watchdog.cjs).
	const packed = await run("npm", ["pack", "--json", "--pack-destination", packDir], REPO_ROOT);
	expect(packed.code, packed.stderr).toBe(0);
	const [report] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
	packedFiles = report.files.map((f) => f.path);
	const tarball = join(packDir, report.filename);

	project = realpathSync(tempDir("pi-watchdog-pack-project-"));
	writeFileSync(
		join(project, "package.json"),
		`${JSON.stringify({ name: "pack-probe", version: "0.0.0", private: true })}\n`,
	);
	// From the cache alone first; only what it lacks is fetched from the registry.
	let install = await run("npm", ["install", tarball, ...INSTALL_FLAGS, "--offline"], project);
	if (install.code !== 0)
		install = await run("npm", ["install", tarball, ...INSTALL_FLAGS, "--prefer-offline"], project);
	expect(install.code, install.stderr).toBe(0);
	installed = join(project, "node_modules", "pi-watchdog");
}, 120_000);

describe("the package as `npm pack` makes it", () => {
	it("holds the entry Pi loads, the sources, the reviewer's prompt, the shipped agents and the bin, and no tests", () => {
		const manifest = readJson(join(installed, "package.json"));
		expect(manifest.pi.extensions).toEqual(["./index.ts"]);
		expect(packedFiles).toEqual(
			expect.arrayContaining([
				"index.ts",
				"dist/pi-watchdog.cjs",
				"dist/build.json",
				"src/extension.ts",
				"prompts/reviewer.md",
				"agents/scout.md",
				"agents/worker.md",
				"agents/reviewer.md",
				"bin/pi-watchdog.mjs",
				"package.json",
				"README.md",
				"docs/settings.md",
				"docs/review.md",
			]),
		);
		expect(packedFiles.filter((f) => /^(test|bench|node_modules)\//.test(f))).toEqual([]);
		// The watchdog's own bundle, which the entry loads when a session needs it: this build's, and no older one.
		expect(packedFiles.filter((f) => f.startsWith("dist/chunks/"))).toEqual([
			expect.stringMatching(/^dist\/chunks\/watchdog-[\w-]+\.cjs$/),
		]);
		// The agent-file parser's YAML library comes with the package, not from Pi.
		expect(existsSync(join(project, "node_modules", "yaml", "package.json"))).toBe(true);
		// The entry is the extension (from the bundle or the sources) under a name Pi lists as the package's.
		expect(typeof entry).toBe("function");
		expect(typeof fromEntry).toBe("function");
		expect(entry.name).toBe(extension.name);
		expect(fromEntry.name).toBe(createWatchdogExtension.name);
	});

	it("installs into Pi from the installed folder, loads, and reviews a run with the packaged prompt", async () => {
		const agentDir = tempDir("pi-watchdog-pack-agent-");
		const added = await runPi(["install", installed], { cwd: tempDir(), agentDir });
		expect(added.code, added.stderr).toBe(0);
		expect(JSON.stringify(readJson(userSettingsPath(agentDir)).packages)).toContain("pi-watchdog");

		const repo = makeGitRepo({ "hello.txt": "hello\n" });
		const script = (req: ChatRequest) => {
			const last = req.messages.at(-1);
			if (req.model === "reviewer") return { text: "Nothing to report." };
			if (last?.role === "tool") return { text: "Wrote hello.txt." };
			return { toolCalls: [{ name: "write", args: { path: "hello.txt", content: "hello, world\n" } }] };
		};
		const cli = await startCli({
			agentDir,
			cwd: repo,
			loadExtension: false,
			script,
			userSettings: wd({ enabled: true, main: { model: "local/reviewer:high" } }),
		});
		try {
			const ours = (await cli.client.getCommands()).find((c) => c.name === "subagents-watchdog");
			expect(ours?.sourceInfo?.path).toBe(join(installed, "index.ts"));
			// An installed copy runs the bundle it ships, from its own folder.
			const status = (await cli.run("/subagents-watchdog status --all")).map((u) => u.message ?? "").join("\n");
			expect(status).toContain(`Folder: ${installed}`);
			expect(status).toContain("Code: prebuilt bundle dist/pi-watchdog.cjs");
			await cli.run("Greet the world in hello.txt", 60_000);
			const reviewerCalls = cli.server.requests.filter((r) => r.model === "reviewer");
			expect(reviewerCalls.length).toBe(1);
			const firstLine = readFileSync(join(REPO_ROOT, "prompts/reviewer.md"), "utf8").split("\n")[0];
			const system = reviewerCalls[0].messages
				.filter((m) => m.role === "system" || m.role === "developer")
				.map((m) => textOf(m.content));
			expect(system.join("\n")).toContain(firstLine);
			expect(cli.client.getStderr()).not.toMatch(/error|failed|cannot find/i);
		} finally {
			await cli.stop();
		}
	});

	it("runs the installed `pi-watchdog scan --json` on a session file, with no peer package installed", async () => {
		// Run without Pi's packages beside it (as `npm install --legacy-peer-deps` leaves it): scan needs none of them.
		for (const peer of ["typebox", "@earendil-works/pi-tui", "@earendil-works/pi-coding-agent"])
			expect(existsSync(join(project, "node_modules", peer))).toBe(false);
		const session = join(tempDir("pi-watchdog-pack-session-"), "polling.jsonl");
		const base = (ts: number) => ({
			version: 1,
			source: "foreground",
			runId: "r1",
			agent: "researcher",
			childIndex: 0,
			cwd: "/repo",
			ts,
			timestamp: "2026-07-01T10:00:00.000Z",
		});
		const lines: object[] = [
			{
				...base(0),
				recordType: "message",
				sourceEventType: "initial_prompt",
				role: "user",
				text: "Wait, then research X.",
				message: { role: "user", content: [{ type: "text", text: "Wait, then research X." }] },
			},
		];
		for (let i = 0; i < 7; i++) {
			lines.push({
				...base(2 * i + 1),
				recordType: "message",
				role: "assistant",
				message: {
					role: "assistant",
					content: [{ type: "toolCall", id: `c${i}`, name: "intercom", arguments: { action: "status" } }],
					stopReason: "toolUse",
				},
			});
			lines.push({
				...base(2 * i + 2),
				recordType: "message",
				role: "toolResult",
				message: {
					role: "toolResult",
					toolCallId: `c${i}`,
					toolName: "intercom",
					content: [{ type: "text", text: "no new messages" }],
					isError: false,
				},
			});
		}
		writeFileSync(session, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);

		const { code, stdout, stderr } = await run(
			join(project, "node_modules", ".bin", "pi-watchdog"),
			["scan", "--json", session],
			project,
			30_000,
		);
		expect(stderr).toBe("");
		expect(code).toBe(0);
		const report = JSON.parse(stdout.trim());
		expect(report).toMatchObject({ file: session, format: "pi-subagents", calls: 7, loop: { flagged: true } });
	});
});
