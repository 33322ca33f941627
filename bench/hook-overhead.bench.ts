// The watchdog's hooks run on every tool call, so with no model review they must cost next to
// nothing: a session of 2,000 read-only tool calls with the watchdog on takes ≤ 1.05 × the time
// per call of the same session with it off. Measures, alternately in one run, a real in-process
// Pi session (pi-ai's faux provider for the models, Pi's own loader loading src/extension.ts by
// path, temp agentDir, retry and compaction off) on a generated git repository (ten source,
// test and doc files of 1,300 lines, and a package.json):
//   a) ON:   the extension, `subagents.watchdog.enabled: true` in the user settings, a reviewer
//            model configured, lsp and loops on;
//   b) OFF:  the extension, `enabled: false`;
//   c) NONE: no extension at all (reported beside the ratio, not part of it).
// The faux main model answers with 500 turns of 4 tool calls each (read, ls, grep, find on the
// repository's files: chunked reads moving through the files, greps for distinct names, finds
// of distinct globs, an ls now and then), then a final text; the turns are made by factories
// when asked for, so nothing is held up front. Timed: session.prompt + waitForIdle, per call;
// medians over the rounds, after a warm-up round of each.
// Checked every round: 2,000 tool results and none an error; no `watchdog-finding` (the loop
// detector must see ordinary work, not a loop); the reviewer model never called; no git
// process (a `git` first on PATH logs every call: a read-only run costs no git); and, from
// `/subagents-watchdog status`, that ON was on and saw every call, and OFF was off.
// Pi's grep and find run ripgrep and fd: ripgrep from PATH or else the project's own
// (@vscode/ripgrep), fd from PATH (`fd` or `fdfind`: no npm package ships it); the bench links
// them into the bin folder where Pi looks first, as after Pi's own download.
import { spawnSync } from "node:child_process";
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import type { AgentSession, ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { median, min, ms, reportFailure, round } from "./stats.ts";
import { commitAll } from "./git-repo.ts";
import { type Call, LINES_PER_FILE, makeCalls, makeRepo } from "./hook-overhead-repo.ts";

const EXTENSION_PATH = resolve(import.meta.dirname, "../src/extension.ts");
const CALLS = 2000;
const PER_TURN = 4;
const ROUNDS = 7;
const WARMUP_ROUNDS = 1;
const TARGET = 1.05;
const TOOLS = ["read", "ls", "grep", "find"];
const FD_HOW = "apt-get install fd-find (Debian, Ubuntu), brew install fd (macOS), or a release of fd for your system";
const FINDING = "watchdog-finding";
const REVIEWER = "faux-reviewer/reviewer-model";

type Config = "on" | "off" | "none";
const CONFIGS: Config[] = ["on", "off", "none"];
const LABEL: Record<Config, string> = { on: "watchdog on ", off: "watchdog off", none: "no extension" };

// ---- one session ----

interface RunResult {
	ms: number;
	/** CPU time of this process (user + system) over the same span: the hooks run here, rg and fd do not. */
	cpuMs: number;
	toolResults: number;
	toolErrors: string[];
	findings: number;
	watchdogEntries: string[];
	reviewerCalls: number;
	mainCalls: number;
	status?: string;
}

const quietUi = (notices: string[]): ExtensionUIContext =>
	new Proxy({ notify: (message: string) => void notices.push(message) } as Partial<ExtensionUIContext>, {
		get: (target, prop) => (prop in target ? target[prop as keyof ExtensionUIContext] : () => undefined),
	}) as ExtensionUIContext;

function userSettings(config: Config): Record<string, unknown> {
	const base = { retry: { enabled: false }, compaction: { enabled: false } };
	if (config === "none") return base;
	return {
		...base,
		subagents: {
			watchdog: {
				enabled: config === "on",
				main: { model: REVIEWER },
				lsp: { enabled: true },
				loops: { enabled: true },
			},
		},
	};
}

async function runSession(config: Config, cwd: string, agentDir: string, calls: Call[]): Promise<RunResult> {
	process.env.PI_CODING_AGENT_DIR = agentDir;
	process.env.PI_OFFLINE = "1";
	const main = fauxProvider({ provider: "faux", models: [{ id: "main-model" }] });
	const reviewer = fauxProvider({ provider: "faux-reviewer", models: [{ id: "reviewer-model", reasoning: true }] });
	const turns = Math.ceil(calls.length / PER_TURN);
	main.setResponses([
		...Array.from(
			{ length: turns },
			(_, t) => () =>
				fauxAssistantMessage(
					calls
						.slice(t * PER_TURN, (t + 1) * PER_TURN)
						.map((c, k) => fauxToolCall(c.name, c.args, { id: `call-${t}-${k}` })),
					{ stopReason: "toolUse" },
				),
		),
		() => fauxAssistantMessage("Read through the orders, cart and payments code; nothing to change."),
	]);
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: null,
		allowModelNetwork: false,
		refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(main.provider);
	modelRuntime.registerNativeProvider(reviewer.provider);
	await modelRuntime.refresh({ allowNetwork: false });
	const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted: true });
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		noExtensions: true,
		additionalExtensionPaths: config === "none" ? [] : [EXTENSION_PATH],
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	const loadErrors = resourceLoader.getExtensions().errors;
	if (loadErrors.length) throw new Error(`extension failed to load: ${JSON.stringify(loadErrors)}`);
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime,
		model: main.getModel(),
		thinkingLevel: "off",
		tools: TOOLS,
		resourceLoader,
		settingsManager,
		sessionManager: SessionManager.inMemory(cwd),
	});
	const notices: string[] = [];
	const errors: unknown[] = [];
	await session.bindExtensions({ mode: "rpc", uiContext: quietUi(notices), onError: (e) => errors.push(e) });
	try {
		const c0 = process.cpuUsage();
		const t0 = process.hrtime.bigint();
		await session.prompt("Read through the orders, cart and payments code and tell me how a refund flows.");
		await session.waitForIdle();
		const elapsed = ms(t0);
		const cpu = process.cpuUsage(c0);
		if (errors.length) throw new Error(`extension errors: ${JSON.stringify(errors).slice(0, 500)}`);
		const result = inspect(session, elapsed, (cpu.user + cpu.system) / 1000);
		result.reviewerCalls = reviewer.state.callCount;
		result.mainCalls = main.state.callCount;
		if (config !== "none") {
			const before = notices.length;
			await session.prompt("/subagents-watchdog status");
			result.status = notices.slice(before).join("\n");
		}
		return result;
	} finally {
		await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
		session.dispose();
	}
}

function inspect(session: AgentSession, elapsed: number, cpuMs: number): RunResult {
	let toolResults = 0;
	const toolErrors: string[] = [];
	let findings = 0;
	const watchdogEntries: string[] = [];
	for (const e of session.sessionManager.getEntries() as Array<Record<string, any>>) {
		if (e.type === "message" && e.message?.role === "toolResult") {
			toolResults++;
			if (e.message.isError)
				toolErrors.push(`${e.message.toolName}: ${JSON.stringify(e.message.content).slice(0, 160)}`);
		}
		if (
			(e.type === "custom" || e.type === "custom_message") &&
			typeof e.customType === "string" &&
			e.customType.startsWith("watchdog")
		) {
			watchdogEntries.push(e.customType);
			if (e.customType === FINDING) findings++;
		}
	}
	return { ms: elapsed, cpuMs, toolResults, toolErrors, findings, watchdogEntries, reviewerCalls: 0, mainCalls: 0 };
}

// ---- the run ----

/** The first of these commands on PATH, as an absolute path. */
function which(...commands: string[]): string | undefined {
	for (const c of commands) {
		const found = spawnSync("sh", ["-c", `command -v ${c}`], { encoding: "utf8" }).stdout.trim();
		if (found) return found;
	}
	return undefined;
}

const root = mkdtempSync(join(tmpdir(), "pi-watchdog-bench-hooks-"));
const savedPath = process.env.PATH;
// Pi fixes the folder where it looks for rg and fd first (<agentDir>/bin) when it is imported.
// With them there, as after Pi's own download, a grep or find starts one process; found only on
// PATH, each call first probes PATH with a synchronous `rg --version` (or `fd --version`),
// which costs more than a millisecond and blocks the event loop.
const toolsAgentDir = join(root, "pi-tools");
process.env.PI_CODING_AGENT_DIR = toolsAgentDir;
const { createAgentSession, DefaultResourceLoader, ModelRuntime, ProjectTrustStore, SessionManager, SettingsManager } =
	await import("@earendil-works/pi-coding-agent");
try {
	// ripgrep comes with the project (the @vscode/ripgrep dev dependency) when none is on PATH.
	const rgPath = which("rg") ?? (await import("@vscode/ripgrep").then((m) => m.rgPath).catch(() => undefined));
	const fdPath = which("fd", "fdfind");
	if (!rgPath || !fdPath) throw new Error(`Pi's find tool needs fd on PATH: ${FD_HOW}`);
	mkdirSync(join(toolsAgentDir, "bin"), { recursive: true });
	symlinkSync(rgPath, join(toolsAgentDir, "bin", "rg"));
	symlinkSync(fdPath, join(toolsAgentDir, "bin", "fd"));
	const cwd = join(root, "repo");
	const repo = makeRepo();
	for (const f of repo) {
		mkdirSync(join(cwd, dirname(f.path)), { recursive: true });
		writeFileSync(join(cwd, f.path), `${f.lines.join("\n")}\n`);
	}
	writeFileSync(
		join(cwd, "package.json"),
		`${JSON.stringify({ name: "shop-api", version: "1.0.0", type: "module" }, null, 2)}\n`,
	);
	commitAll(cwd, "generated");

	// From here on every git process anyone starts is logged.
	const realGit = which("git") ?? "/usr/bin/git";
	const shim = join(root, "shim");
	const gitLog = join(root, "git-calls.log");
	mkdirSync(shim);
	writeFileSync(join(shim, "git"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${gitLog}'\nexec '${realGit}' "$@"\n`);
	chmodSync(join(shim, "git"), 0o755);
	process.env.PATH = `${shim}${delimiter}${savedPath ?? ""}`;
	const gitCalls = () => (existsSync(gitLog) ? readFileSync(gitLog, "utf8").split("\n").filter(Boolean) : []);

	const calls = makeCalls(repo, CALLS);
	const mix = TOOLS.map((t) => `${t} ${calls.filter((c) => c.name === t).length}`);
	console.log(
		`repository: ${repo.length + 1} files, ${repo.length * LINES_PER_FILE} lines; session: ${calls.length} tool calls (${mix.join(", ")}), ${PER_TURN} per turn, then a final text`,
	);

	const agentDirs = Object.fromEntries(
		CONFIGS.map((c) => {
			const dir = join(root, `agent-${c}`);
			mkdirSync(dir);
			writeFileSync(join(dir, "settings.json"), `${JSON.stringify(userSettings(c), null, 2)}\n`);
			new ProjectTrustStore(dir).set(cwd, true);
			return [c, dir];
		}),
	) as Record<Config, string>;

	const times: Record<Config, number[]> = { on: [], off: [], none: [] };
	const cpuTimes: Record<Config, number[]> = { on: [], off: [], none: [] };
	let findings = 0;
	const watchdogEntries = new Map<string, number>();
	let reviewerCalls = 0;
	let loopCallsSeen: number | undefined;
	async function one(config: Config, what: string): Promise<RunResult> {
		const g0 = gitCalls().length;
		const r = await runSession(config, cwd, agentDirs[config], calls);
		const newGit = gitCalls().slice(g0);
		if (r.toolResults !== CALLS) throw new Error(`${what} ${config}: ${r.toolResults} tool results, expected ${CALLS}`);
		if (r.toolErrors.length)
			throw new Error(`${what} ${config}: ${r.toolErrors.length} tool calls failed, first: ${r.toolErrors[0]}`);
		if (r.mainCalls !== Math.ceil(CALLS / PER_TURN) + 1)
			throw new Error(`${what} ${config}: the main model was called ${r.mainCalls} times`);
		if (newGit.length)
			throw new Error(
				`${what} ${config}: ${newGit.length} git process(es) during a read-only session, first: git ${newGit[0]}`,
			);
		if (config === "on") {
			if (!/^Watchdog: on\b/m.test(r.status ?? "")) throw new Error(`${what}: the watchdog is not on: ${r.status}`);
			// The status says "Loops: N calls seen" (`status --all`: "calls seen: N (window …)").
			const seen = /(?:calls seen: (\d+)|(\d+) calls seen)/.exec(r.status ?? "");
			if (!seen) throw new Error(`${what}: the status does not say how many calls the loop detector saw: ${r.status}`);
			loopCallsSeen = Number(seen[1] ?? seen[2]);
			if (loopCallsSeen !== CALLS)
				throw new Error(`${what}: the loop detector saw ${loopCallsSeen} calls, expected ${CALLS}`);
		}
		if (config === "off" && !/^Watchdog: off\b/m.test(r.status ?? ""))
			throw new Error(`${what}: the watchdog is not off: ${r.status}`);
		findings += r.findings;
		for (const t of r.watchdogEntries) watchdogEntries.set(t, (watchdogEntries.get(t) ?? 0) + 1);
		reviewerCalls += r.reviewerCalls;
		return r;
	}

	for (let w = 0; w < WARMUP_ROUNDS; w++) {
		const line: string[] = [];
		for (const c of CONFIGS) line.push(`${c} ${(((await one(c, "warm-up")).ms * 1000) / CALLS).toFixed(0)} µs/call`);
		console.log(`warm-up round (not counted): ${line.join(", ")}`);
	}
	for (let r = 0; r < ROUNDS; r++) {
		// Rotate the order, so drift (page cache, heap growth, CPU clock) falls on each alike.
		const order = CONFIGS.map((_, k) => CONFIGS[(k + r) % CONFIGS.length]);
		for (const c of order) {
			const result = await one(c, `round ${r + 1}`);
			times[c].push(result.ms);
			cpuTimes[c].push(result.cpuMs);
		}
		console.log(
			`round ${r + 1}: ${CONFIGS.map((c) => `${c} ${((times[c][r] * 1000) / CALLS).toFixed(0)}`).join(", ")} µs/call (order ${order.join(" → ")})`,
		);
	}

	const micros = (c: Config) => (median(times[c]) * 1000) / CALLS;
	const cpuMicros = (c: Config) => (median(cpuTimes[c]) * 1000) / CALLS;
	const spread = (c: Config) => {
		const xs = times[c].map((t) => (t * 1000) / CALLS);
		const m = xs.reduce((a, b) => a + b, 0) / xs.length;
		const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
		return { min: min(xs), max: Math.max(...xs), cv: sd / m };
	};
	const ratio = micros("on") / micros("off");
	const cpuRatio = cpuMicros("on") / cpuMicros("off");
	const paired = times.on.map((t, i) => t / times.off[i]);
	const pass = ratio <= TARGET && findings === 0 && reviewerCalls === 0;
	for (const c of CONFIGS) {
		const s = spread(c);
		console.log(
			`${LABEL[c]}: median ${micros(c).toFixed(1)} µs per tool call (min ${s.min.toFixed(1)}, max ${s.max.toFixed(1)}, cv ${(s.cv * 100).toFixed(1)}%, ${ROUNDS} rounds); this process's CPU ${cpuMicros(c).toFixed(1)} µs per call`,
		);
	}
	console.log(
		`paired per round on / off: median ${median(paired).toFixed(3)}, min ${min(paired).toFixed(3)}, max ${Math.max(...paired).toFixed(3)}`,
	);
	console.log(
		`on − off: ${(micros("on") - micros("off")).toFixed(1)} µs per call; off − no extension: ${(micros("off") - micros("none")).toFixed(1)} µs per call`,
	);
	console.log(
		`CPU time of this process (where the hooks run) on / off: ${cpuRatio.toFixed(3)}, on − off ${(cpuMicros("on") - cpuMicros("off")).toFixed(1)} µs per call`,
	);
	const entryKinds = [...watchdogEntries].map(([t, n]) => `${t} ×${n}`).join(", ") || "none";
	console.log(
		`watchdog-finding entries: ${findings} (watchdog entries over all sessions: ${entryKinds}); reviewer calls: ${reviewerCalls}; git processes: 0; the loop detector saw ${loopCallsSeen} calls per session`,
	);
	console.log(`ratio on / off: ${ratio.toFixed(3)} (target ≤ ${TARGET})`);
	console.log(
		JSON.stringify({
			bench: "hook-overhead",
			ratio: round(ratio, 3),
			target: TARGET,
			pass,
			onMicros: round(micros("on"), 1),
			offMicros: round(micros("off"), 1),
			noExtensionMicros: round(micros("none"), 1),
			cpuRatio: round(cpuRatio, 3),
			onCpuMicros: round(cpuMicros("on"), 1),
			offCpuMicros: round(cpuMicros("off"), 1),
			noExtensionCpuMicros: round(cpuMicros("none"), 1),
			pairedRatioMedian: round(median(paired), 3),
			pairedRatioMin: round(min(paired), 3),
			pairedRatioMax: round(Math.max(...paired), 3),
			onCv: round(spread("on").cv, 3),
			offCv: round(spread("off").cv, 3),
			noExtensionCv: round(spread("none").cv, 3),
			watchdogFindings: findings,
			reviewerCalls,
			gitProcesses: 0,
			calls: CALLS,
			rounds: ROUNDS,
		}),
	);
	if (!pass) process.exitCode = 1;
} catch (error) {
	reportFailure("hook-overhead", TARGET, error);
} finally {
	process.env.PATH = savedPath;
	rmSync(root, { recursive: true, force: true });
}
