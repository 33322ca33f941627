// The permission gate sits in a child's `tool_call` hook, so on a call no rule stops it must
// cost next to nothing: Pi's own tool_call dispatch of an allowed call in a child whose policy
// has rules takes ≤ 1.05 × the same dispatch in a child without rules (which installs no gate).
// Two real in-process Pi sessions (pi-ai's faux provider for the model, temp agentDir and
// repository), each with our child watchdog loaded as Pi loads it for a launch
// (createWatchdogExtension with role, parent settings, run id, task): one with a policy of 40
// rules (exact names and globs, deny and ask, none matching `read`), one with none. Timed:
// `extensionRunner.emitToolCall` of `read` calls, the path every tool call of a child takes
// through our hook, in short alternating blocks (so both see the same machine); medians over
// many rounds after a warm-up. Checked
// every round: no allowed call was blocked; a `write` is blocked in the gated child and not in
// the other (the gate really is there, and really is absent).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxProvider } from "@earendil-works/pi-ai";
import type { AgentSession, ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { commitAll } from "./git-repo.ts";
import { median, min, reportFailure, round, scratchDir } from "./stats.ts";

const CALLS = 1_000;
const ROUNDS = 200;
const TARGET = 1.05;

const scratch = scratchDir("pi-watchdog-bench-perm-");
const agentDir = join(scratch.root, "agent");
const cwd = join(scratch.root, "repo");
mkdirSync(agentDir, { recursive: true });
mkdirSync(join(cwd, "src"), { recursive: true });
process.env.PI_CODING_AGENT_DIR = agentDir;
process.env.PI_OFFLINE = "1";
const pi = await import("@earendil-works/pi-coding-agent");
const { createWatchdogExtension } = await import("../src/extension.ts");
const { SettingsStore } = await import("../src/settings/store.ts");
const { layerPolicy } = await import("../src/permissions/index.ts");

const quietUi = new Proxy({} as Partial<ExtensionUIContext>, { get: () => () => undefined }) as ExtensionUIContext;

async function childSession(permissions: unknown): Promise<AgentSession> {
	const store = new SettingsStore({ agentDir: () => agentDir, configDirName: ".pi" });
	const parentSettings = () => store.resolve({ cwd, trusted: true });
	const main = fauxProvider({ provider: "faux", models: [{ id: "main-model" }] });
	const modelRuntime = await pi.ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: null,
		allowModelNetwork: false,
		refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(main.provider);
	await modelRuntime.refresh({ allowNetwork: false });
	const settingsManager = pi.SettingsManager.create(cwd, agentDir, { projectTrusted: true });
	const factory = createWatchdogExtension({
		role: "worker",
		parent: { deliver: () => {}, settled: () => {} },
		parentSettings,
		runId: "bench",
		task: "read the code",
		...(permissions ? { permissions: permissions as never } : {}),
	});
	const resourceLoader = new pi.DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		noExtensions: true,
		extensionFactories: [{ name: "pi-watchdog", factory }],
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	const { session } = await pi.createAgentSession({
		cwd,
		agentDir,
		modelRuntime,
		model: main.getModel(),
		thinkingLevel: "off",
		tools: ["read", "write"],
		resourceLoader,
		settingsManager,
		sessionManager: pi.SessionManager.inMemory(cwd),
	});
	await session.bindExtensions({ mode: "rpc", uiContext: quietUi });
	return session;
}

let n = 0;
const emit = (s: AgentSession, toolName: string, input: Record<string, unknown>) =>
	s.extensionRunner.emitToolCall({ type: "tool_call", toolCallId: `c${n++}`, toolName, input } as never);

/** Nanoseconds per allowed call over one block; throws if any was blocked. */
async function block(s: AgentSession, calls: number): Promise<number> {
	const t0 = process.hrtime.bigint();
	let blocked = 0;
	for (let i = 0; i < calls; i++)
		if ((await emit(s, "read", { path: `src/file-${i % 50}.ts`, offset: 1 + (i % 7) * 40, limit: 40 }))?.block)
			blocked++;
	const ns = Number(process.hrtime.bigint() - t0) / calls;
	if (blocked) throw new Error(`${blocked} allowed calls were blocked`);
	return ns;
}

try {
	for (let i = 0; i < 50; i++) writeFileSync(join(cwd, "src", `file-${i}.ts`), `export const v${i} = ${i};\n`);
	commitAll(cwd, "fixture");
	// The child watchdog on (its change gate takes part in every call, as in a real child).
	writeFileSync(
		join(agentDir, "settings.json"),
		JSON.stringify({
			retry: { enabled: false },
			compaction: { enabled: false },
			subagents: { watchdog: { enabled: true, children: { enabled: true }, main: { model: "faux/main-model" } } },
		}),
	);
	const rules: Record<string, "ask" | "deny" | "allow"> = {
		write: "deny",
		edit: "ask",
		"mcp__*": "ask",
		"mcp__github__*": "deny",
		"*_admin": "deny",
		"web_?etch": "ask",
	};
	for (let i = 0; i < 34; i++)
		rules[`tool_${i}${i % 2 ? "*" : ""}`] = i % 3 === 0 ? "allow" : i % 3 === 1 ? "ask" : "deny";
	const policy = layerPolicy({ rules, file: join(agentDir, "extensions", "subagent", "config.json") }, undefined);
	const gated = await childSession(policy);
	const plain = await childSession(undefined);
	try {
		if (!(await emit(gated, "write", { path: "x", content: "" }))?.block)
			throw new Error("the gated child did not block a denied write: no gate");
		if ((await emit(plain, "write", { path: "x", content: "" }))?.block)
			throw new Error("the child without rules blocked a write");
		await block(gated, 5_000);
		await block(plain, 5_000);
		const g: number[] = [];
		const p: number[] = [];
		for (let r = 0; r < ROUNDS; r++) {
			// Alternate which goes first, so drift falls on both alike.
			if (r % 2) {
				p.push(await block(plain, CALLS));
				g.push(await block(gated, CALLS));
			} else {
				g.push(await block(gated, CALLS));
				p.push(await block(plain, CALLS));
			}
			if ((r + 1) % 25 === 0)
				console.log(
					`round ${r + 1}: gated ${(g[r] / 1000).toFixed(2)} µs, ungated ${(p[r] / 1000).toFixed(2)} µs per call`,
				);
		}
		const ratio = median(g) / median(p);
		const paired = g.map((x, i) => x / p[i]);
		console.log(
			`allowed call through the tool_call hook: with rules ${(median(g) / 1000).toFixed(2)} µs, without (no gate) ${(median(p) / 1000).toFixed(2)} µs (medians of ${ROUNDS} rounds of ${CALLS} calls)`,
		);
		console.log(
			`paired per round: median ${median(paired).toFixed(3)}, min ${min(paired).toFixed(3)}, max ${Math.max(...paired).toFixed(3)}`,
		);
		console.log(`ratio gated / ungated: ${ratio.toFixed(3)} (target ≤ ${TARGET})`);
		console.log(
			JSON.stringify({
				bench: "permission-gate",
				ratio: round(ratio, 3),
				target: TARGET,
				pass: ratio <= TARGET,
				gatedMicros: round(median(g) / 1000, 3),
				ungatedMicros: round(median(p) / 1000, 3),
				pairedRatioMedian: round(median(paired), 3),
				rules: Object.keys(rules).length,
				calls: CALLS,
				rounds: ROUNDS,
			}),
		);
		if (ratio > TARGET) process.exitCode = 1;
	} finally {
		for (const s of [gated, plain]) {
			await s.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
			s.dispose();
		}
	}
} catch (error) {
	reportFailure("permission-gate", TARGET, error);
} finally {
	scratch.cleanup();
}
