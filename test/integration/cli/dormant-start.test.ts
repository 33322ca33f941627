// What a start of the real `pi` bin loads of ours (issue 29: the cost of a package that is switched off): with
// the watchdog off, only the extension's registrations (dist/pi-watchdog.cjs) at start, the watchdog itself
// (dist/chunks/watchdog-*.cjs) not before LOAD_AFTER_MS (a run that ends sooner never loads it); with it on,
// both at start. A session that lives on loads it (the fleet's mailbox then finds it), and a misspelt setting
// loads it at once, so its error is not lost.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOAD_AFTER_MS } from "../../../src/startup/index.ts";
import { bundleIsCurrent } from "../../../src/util/bundle-state.ts";
import { LOAD_CHANNEL } from "../../../src/util/code-cache.ts";
import { startScriptedServer, type ScriptedServer } from "../../support/openai-server.ts";
import { PI_CLI, REPO_ROOT, startCli, writeModelsJson } from "../../support/pi-cli.ts";
import { QUIET_PI_SETTINGS } from "../../support/pi-session.ts";
import { runProcess } from "../../support/run-process.ts";
import { userSettingsPath, wd, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

const ANSWER = "Hello from the scripted model.";
const DIST = join(REPO_ROOT, "dist");

describe("a start of pi with pi-watchdog installed", () => {
	let server: ScriptedServer;
	const root = tempDir("pi-watchdog-dormant-cli-");
	const probe = join(root, "probe.mjs");

	beforeAll(async () => {
		// The CLI tests run what users load: the bundle `npm test` builds first.
		expect(bundleIsCurrent(REPO_ROOT), "dist/ is not built from these sources: run npm run build").toBe(true);
		server = await startScriptedServer(() => ({ text: ANSWER }));
		writeFileSync(
			probe,
			[
				// Each of our bundle's files as index.ts's loader loads it (src/util/code-cache.ts says so on a
				// diagnostics channel), with the time since the first one.
				'import { writeFileSync } from "node:fs";',
				'import { subscribe } from "node:diagnostics_channel";',
				"const seen = [];",
				`subscribe(${JSON.stringify(LOAD_CHANNEL)}, ({ file, cache }) => {`,
				`  if (file.startsWith(${JSON.stringify(`${DIST}/`)}) && !seen.some((s) => s.file === file))`,
				"    seen.push({ file, at: performance.now(), cache });",
				"});",
				"process.on('exit', () => writeFileSync(process.env.LOADED_OUT, JSON.stringify(seen)));",
			].join("\n"),
		);
	});
	afterAll(async () => {
		await server?.close();
	});

	/** `pi -p "hi"` with these watchdog settings: what it printed, and which of our bundles it loaded. */
	async function startOnce(watchdog: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
		const agentDir = tempDir("pi-watchdog-dormant-agent-");
		const cwd = tempDir("pi-watchdog-dormant-cwd-");
		writeModelsJson(agentDir, server.baseUrl, [{ id: "main" }, { id: "reviewer", reasoning: true }]);
		const settings = { defaultProvider: "local", defaultModel: "main", ...QUIET_PI_SETTINGS, ...wd(watchdog) };
		writeJson(userSettingsPath(agentDir), settings);
		const out = join(agentDir, "loaded.txt");
		const ran = await runProcess(
			process.execPath,
			[PI_CLI, "-e", join(REPO_ROOT, "index.ts"), "-p", "--no-session", "hi"],
			{
				cwd,
				env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", LOADED_OUT: out, ...env },
				timeoutMs: 60_000,
			},
		);
		const seen = JSON.parse(readFileSync(out, "utf8")) as Array<{ file: string; at: number; cache: string }>;
		const first = seen[0]?.at ?? 0;
		const loaded = seen.map((s) => ({ file: s.file.slice(DIST.length + 1), after: s.at - first, cache: s.cache }));
		return { ran, loaded, files: loaded.map((l) => l.file) };
	}
	const nodeOptions = () => `${process.env.NODE_OPTIONS ?? ""} --import ${probe}`.trim();

	it("loads only the registrations when the watchdog is off, and the watchdog when it is on", async () => {
		const saved = process.env.NODE_OPTIONS;
		process.env.NODE_OPTIONS = nodeOptions();
		try {
			const off = await startOnce({ enabled: false, main: { model: "local/reviewer" } });
			expect(off.ran.code, off.ran.stderr).toBe(0);
			expect(off.ran.stdout).toContain(ANSWER);
			expect(off.files[0]).toBe("pi-watchdog.cjs");
			// On a busy machine the run may outlast LOAD_AFTER_MS: then, and only then, the watchdog loads.
			for (const later of off.loaded.slice(1)) expect(later.after).toBeGreaterThanOrEqual(LOAD_AFTER_MS - 50);

			const on = await startOnce({ enabled: true, main: { model: "local/reviewer" } });
			expect(on.ran.code, on.ran.stderr).toBe(0);
			expect(on.ran.stdout).toContain(ANSWER);
			expect(on.files[0]).toBe("pi-watchdog.cjs");
			expect(on.files.filter((f) => /^chunks\/watchdog-[\w-]+\.cjs$/.test(f))).toHaveLength(1);
			expect(on.loaded[1].after).toBeLessThan(LOAD_AFTER_MS - 50); // at start, not by the timer

			// A misspelt key may be meant to turn it on: the watchdog loads and says what is wrong.
			const typo = await startOnce({ enabeld: true });
			expect(typo.ran.code, typo.ran.stderr).toBe(0);
			expect(typo.files.filter((f) => f.startsWith("chunks/watchdog-"))).toHaveLength(1);
			expect(typo.loaded[1].after).toBeLessThan(LOAD_AFTER_MS - 50);
		} finally {
			if (saved === undefined) delete process.env.NODE_OPTIONS;
			else process.env.NODE_OPTIONS = saved;
		}
	});

	it("loads a bundle that is ASCII only: V8 keeps it as one-byte strings, not decoded into two-byte ones", () => {
		const { outputs } = JSON.parse(readFileSync(join(DIST, "build.json"), "utf8")) as { outputs: string[] };
		expect(outputs).toHaveLength(2);
		for (const file of outputs) {
			const bytes = readFileSync(join(DIST, file));
			const other = bytes.findIndex((b) => b > 0x7f);
			expect(
				other,
				`${file}: a non-ASCII byte at ${other}: ${bytes.subarray(Math.max(0, other - 60), other + 20)}`,
			).toBe(-1);
		}
	});

	it("compiles our code once: a second start uses the code cache the first one made beside Node's", async () => {
		const saved = process.env.NODE_OPTIONS;
		process.env.NODE_OPTIONS = nodeOptions();
		try {
			// A fresh compile cache folder (Pi turns Node's on, in the temporary folder unless told): ours goes beside it.
			const env = { NODE_COMPILE_CACHE: join(tempDir("pi-watchdog-dormant-tmp-"), "compile-cache") };
			const on = { enabled: true, main: { model: "local/reviewer" } };
			const first = await startOnce(on, env);
			expect(first.ran.code, first.ran.stderr).toBe(0);
			expect(first.loaded.map((l) => l.cache)).toEqual(["made", "made"]);
			const second = await startOnce(on, env);
			expect(second.ran.code, second.ran.stderr).toBe(0);
			expect(second.ran.stdout).toContain(ANSWER);
			expect(second.loaded.map((l) => l.cache)).toEqual(["used", "used"]);
			// Without Node's compile cache (the host's choice), none of ours either.
			const none = await startOnce(on, { ...env, NODE_DISABLE_COMPILE_CACHE: "1" });
			expect(none.ran.stdout).toContain(ANSWER);
			expect(none.loaded.map((l) => l.cache)).toEqual(["off", "off"]);
		} finally {
			if (saved === undefined) delete process.env.NODE_OPTIONS;
			else process.env.NODE_OPTIONS = saved;
		}
	});

	it("loads an off watchdog two seconds into a session that lives on: the fleet can reach it", async () => {
		const cli = await startCli({ script: () => ({ text: ANSWER }), userSettings: wd({ enabled: false }) });
		try {
			const live = join(cli.agentDir, "watchdog", "live");
			const deadline = Date.now() + 10_000;
			while (Date.now() < deadline && !(existsSync(live) && readdirSync(live).some((n) => n.endsWith(".json"))))
				await new Promise((r) => setTimeout(r, 50));
			expect(readdirSync(live).filter((n) => n.endsWith(".json"))).toHaveLength(1);
			const out = await cli.run("/subagents-watchdog status");
			expect(out.map((n) => n.message).join("\n")).toMatch(/^Watchdog: off/);
		} finally {
			await cli.stop();
		}
	});
});
