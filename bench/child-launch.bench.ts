// A foreground child runs in the parent's process, on the parent's model runtime, instead of as
// a new `pi` process: the point is that launching one costs a fraction of starting Pi. Measures,
// alternately in one run, against a local OpenAI-compatible server in this process (so both
// clocks are the same), with the shipped `scout` agent on a model of that server:
//   a) CHILD: a parent Pi session in this process (its model on the same server) calls the
//      `subagent` tool; from the parent's tool_execution_start to the child's first model
//      request arriving at the server;
//   b) PROCESS: the same agent as `pi -p --no-session` with our extension (-e), its system
//      prompt given with --append-system-prompt and the same tools; from spawn to its first
//      model request arriving at the server.
// A third figure is reported beside the ratio, not part of it: `pi -p` with no extensions at
// all (what Pi's own start costs).
// Our watchdog is on in both (main and children, a reviewer on the server), in a small git repo.
// Memory (printed, no target): the resident set of this process, which hosts the parent, before
// a launch of 8 parallel foreground children and while all 8 are running (the server holds each
// child's first request until all 8 have arrived, then answers them).
// Every launch is checked: the child's request carries the scout's prompt and its four tools,
// each child ends `done`, each `pi -p` prints the answer and exits 0.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { type Arrival, type BenchServer, bounded, startServer, textOf } from "./bench-server.ts";
import { openParentSession } from "./parent-session.ts";
import { median, min, ms, reportFailure, round, scratchDir } from "./stats.ts";
import { commitAll } from "./git-repo.ts";

const ROUNDS = 9;
const WARMUP_ROUNDS = 1;
const PARALLEL = 8;
const TARGET = 0.2;
const TIMEOUT_MS = 60_000;
const MiB = 1024 * 1024;
// A full collection before each memory reading, so that the heap figures are what is live (the
// runner starts benches without --expose-gc, so the flag is set from here).
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const REPO_ROOT = resolve(import.meta.dirname, "..");
const PI_CLI = join(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
const EXTENSION_PATH = join(REPO_ROOT, "src/extension.ts");
const AGENT = "scout";
const AGENT_TOOLS = ["read", "grep", "find", "ls"];
const TASK = "Find where the greeting is defined and report its file and line.";
const ANSWER = "The greeting is defined in src/greet.ts:1.";

/** The agent file's body: what both the child and `pi -p` get as the appended system prompt. */
function agentBody(name: string): string {
	const text = readFileSync(join(REPO_ROOT, "agents", `${name}.md`), "utf8");
	const end = text.indexOf("\n---", 3);
	if (!text.startsWith("---") || end < 0) throw new Error(`agents/${name}.md has no frontmatter`);
	return text.slice(end + 4).trim();
}

// ---- the run ----

const scratch = scratchDir("pi-watchdog-bench-children-");
const root = scratch.root;
const agentDir = join(root, "agent");
const repo = join(root, "repo");
process.env.PI_CODING_AGENT_DIR = agentDir;
process.env.PI_OFFLINE = "1";
const { ProjectTrustStore } = await import("@earendil-works/pi-coding-agent");

let dispose: (() => Promise<void>) | undefined;
let server: BenchServer | undefined;
try {
	const body = agentBody(AGENT);
	mkdirSync(join(repo, "src"), { recursive: true });
	writeFileSync(join(repo, "README.md"), "# greeter\n\nSays hello.\n");
	writeFileSync(join(repo, "src/greet.ts"), "export const greet = (name: string) => `hello ${name}`;\n");
	writeFileSync(
		join(repo, "package.json"),
		`${JSON.stringify({ name: "greeter", version: "1.0.0", type: "module" }, null, 2)}\n`,
	);
	commitAll(repo, "greeter");

	// The server: the parent launches what `launch` says, then closes its turn; a child answers
	// at once, or (memory phase) once `hold` lets it.
	let launch: unknown = { agent: AGENT, task: TASK, model: "local/child" };
	let hold: Promise<void> | undefined;
	server = await startServer(async (a) => {
		if (a.model === "parent")
			return a.lastRole === "tool"
				? { text: "The scout reported back." }
				: { toolCall: { name: "subagent", args: launch } };
		if (a.model === "child") {
			if (hold) await hold;
			return { text: ANSWER };
		}
		return { text: "Nothing to flag." }; // a reviewer, should the watchdog ask one
	});
	const srv = server;

	mkdirSync(agentDir, { recursive: true });
	const model = (id: string, reasoning = false) => ({ id, name: id, reasoning, contextWindow: 32000, maxTokens: 2048 });
	writeFileSync(
		join(agentDir, "models.json"),
		JSON.stringify(
			{
				providers: {
					local: {
						baseUrl: srv.baseUrl,
						api: "openai-completions",
						apiKey: "bench-key",
						models: [model("parent"), model("child"), model("reviewer", true)],
					},
				},
			},
			null,
			2,
		),
	);
	const watchdog = {
		enabled: true,
		main: { model: "local/reviewer" },
		children: { enabled: true, concurrency: PARALLEL },
	};
	writeFileSync(
		join(agentDir, "settings.json"),
		JSON.stringify({ retry: { enabled: false }, compaction: { enabled: false }, subagents: { watchdog } }, null, 2),
	);
	new ProjectTrustStore(agentDir).set(repo, true);

	// The parent: an in-process Pi session with our extension loaded from its file, as Pi does.
	const parent = await openParentSession({
		agentDir,
		repo,
		extensionPath: EXTENSION_PATH,
		model: "parent",
		tools: ["read", "bash", "subagent"],
	});
	const { session, errors: extensionErrors } = parent;
	dispose = parent.dispose;
	let toolStart: bigint | undefined;
	session.subscribe((event) => {
		if (event.type === "tool_execution_start" && event.toolName === "subagent") toolStart = process.hrtime.bigint();
	});
	const lastToolResult = (): string => {
		const results = (session.messages as Array<{ role: string; toolName?: string; content: unknown }>).filter(
			(m) => m.role === "toolResult" && m.toolName === "subagent",
		);
		return textOf(results.at(-1)?.content);
	};

	/** The agent's prompt and tools, as each launch's first request must carry them. */
	const checkRequest = (a: Arrival, what: string) => {
		if (!a.system.includes(body))
			throw new Error(`${what}: the first request's system prompt lacks the ${AGENT} agent's body`);
		if (a.tools.join(",") !== [...AGENT_TOOLS].sort().join(","))
			throw new Error(
				`${what}: the first request offers tools ${a.tools.join(", ")}, expected ${AGENT_TOOLS.join(", ")}`,
			);
	};

	/** a) one foreground child through the parent's `subagent` tool. */
	async function childLaunch(what: string): Promise<{ ms: number; arrival: Arrival }> {
		launch = { agent: AGENT, task: TASK, model: "local/child" };
		toolStart = undefined;
		const before = srv.arrivals.length;
		await bounded(session.prompt("Ask a scout where the greeting is defined."), `${what}: the parent's turn`);
		const start = toolStart as bigint | undefined;
		if (start === undefined) throw new Error(`${what}: the parent did not call subagent`);
		const arrival = srv.arrivals.slice(before).find((a) => a.model === "child" && a.at > start);
		if (!arrival) throw new Error(`${what}: no child request reached the server`);
		const result = lastToolResult();
		if (!/scout .*: done/.test(result) || !result.includes(ANSWER))
			throw new Error(`${what}: unexpected tool result: ${result.slice(0, 400)}`);
		if (extensionErrors.length)
			throw new Error(`${what}: extension errors: ${JSON.stringify(extensionErrors).slice(0, 400)}`);
		checkRequest(arrival, what);
		return { ms: Number(arrival.at - start) / 1e6, arrival };
	}

	/** b) the same agent as a `pi -p` process (with our extension, or with none). */
	async function processLaunch(
		withExtension: boolean,
		what: string,
	): Promise<{ ms: number; arrival: Arrival; totalMs: number }> {
		const args = [
			PI_CLI,
			"-p",
			"--no-session",
			...(withExtension ? ["-e", EXTENSION_PATH] : ["--no-extensions"]),
			"--model",
			"local/child",
			"--tools",
			AGENT_TOOLS.join(","),
			"--append-system-prompt",
			body,
			TASK,
		];
		const t0 = process.hrtime.bigint();
		const child = spawn(process.execPath, args, {
			cwd: repo,
			env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let out = "";
		let err = "";
		child.stdout.on("data", (d) => (out += d));
		child.stderr.on("data", (d) => (err += d));
		const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
		try {
			const arrival = await bounded(srv.next("child", t0), `${what}: pi -p's first request`);
			const code = await bounded(exited, `${what}: pi -p's exit`);
			const totalMs = ms(t0);
			if (code !== 0 || !out.includes(ANSWER))
				throw new Error(`${what}: pi -p exited ${code}; stdout ${out.slice(0, 300)}; stderr ${err.slice(0, 300)}`);
			checkRequest(arrival, what);
			return { ms: Number(arrival.at - t0) / 1e6, arrival, totalMs };
		} finally {
			if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
		}
	}

	type Kind = "child" | "process" | "bare";
	const KINDS: Kind[] = ["child", "process", "bare"];
	const times: Record<Kind, number[]> = { child: [], process: [], bare: [] };
	const processTotal: number[] = [];
	const lastArrival: Partial<Record<Kind, Arrival>> = {};
	const one = async (kind: Kind, what: string): Promise<number> => {
		if (kind === "child") {
			const r = await childLaunch(what);
			lastArrival.child = r.arrival;
			return r.ms;
		}
		const r = await processLaunch(kind === "process", what);
		if (kind === "process") processTotal.push(r.totalMs);
		lastArrival[kind] = r.arrival;
		return r.ms;
	};

	for (let w = 0; w < WARMUP_ROUNDS; w++) {
		const line: string[] = [];
		for (const k of KINDS) line.push(`${k} ${(await one(k, "warm-up")).toFixed(0)} ms`);
		console.log(`warm-up round (not counted): ${line.join(", ")}`);
	}
	processTotal.length = 0;

	// Memory first, before the timed rounds add their garbage to this process's heap.
	gc();
	const rssBefore = process.memoryUsage().rss;
	const heapBefore = process.memoryUsage().heapUsed;
	let release = () => {};
	hold = new Promise<void>((done) => (release = done));
	launch = {
		tasks: Array.from({ length: PARALLEL }, (_, i) => ({
			agent: AGENT,
			task: `${TASK} (part ${i + 1})`,
			model: "local/child",
		})),
	};
	let peak = rssBefore;
	const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
	const since = process.hrtime.bigint();
	const before = srv.arrivals.length;
	const allHeld = (async () => {
		const deadline = Date.now() + TIMEOUT_MS;
		while (srv.arrivals.slice(before).filter((a) => a.model === "child").length < PARALLEL) {
			if (Date.now() > deadline)
				throw new Error(
					`memory: only ${srv.arrivals.slice(before).filter((a) => a.model === "child").length} of ${PARALLEL} children reached the server`,
				);
			await new Promise((r) => setTimeout(r, 5));
		}
	})();
	const turn = bounded(session.prompt("Send eight scouts."), "memory: the parent's turn");
	let rssAll: number;
	let heapAll: number;
	let allArrivedMs: number;
	try {
		await allHeld;
		allArrivedMs = ms(since);
		gc();
		rssAll = process.memoryUsage().rss;
		heapAll = process.memoryUsage().heapUsed;
	} finally {
		release();
		hold = undefined;
	}
	await turn;
	clearInterval(sampler);
	const parallelResult = lastToolResult();
	const done = (parallelResult.match(/: done/g) ?? []).length;
	if (done !== PARALLEL)
		throw new Error(`memory: ${done} of ${PARALLEL} children done: ${parallelResult.slice(0, 600)}`);
	console.log(
		`memory (this process, hosting the parent): RSS ${(rssBefore / MiB).toFixed(0)} MiB before, ${(rssAll / MiB).toFixed(0)} MiB with ${PARALLEL} children running (+${((rssAll - rssBefore) / MiB / PARALLEL).toFixed(1)} MiB each), peak ${(peak / MiB).toFixed(0)} MiB; live heap ${(heapBefore / MiB).toFixed(1)} → ${(heapAll / MiB).toFixed(1)} MiB (+${((heapAll - heapBefore) / MiB / PARALLEL).toFixed(2)} MiB each); all ${PARALLEL} first requests at the server ${allArrivedMs.toFixed(0)} ms after the prompt`,
	);

	for (let r = 0; r < ROUNDS; r++) {
		// Rotate the order, so drift (page cache, heap growth, CPU clock) falls on each alike.
		const order = KINDS.map((_, k) => KINDS[(k + r) % KINDS.length]);
		for (const k of order) times[k].push(await one(k, `round ${r + 1} ${k}`));
		console.log(
			`round ${r + 1}: ${KINDS.map((k) => `${k} ${times[k][r].toFixed(0)} ms`).join(", ")} (order ${order.join(" → ")})`,
		);
	}
	// Whether the two ways give the agent the same system prompt (reported; the checks above
	// already require the agent's body and tools in both).
	const firstChild = lastArrival.child;
	const firstProcess = lastArrival.process;
	const sameSystemPrompt = firstChild?.system === firstProcess?.system;

	const ratio = median(times.child) / median(times.process);
	const paired = times.child.map((t, i) => t / times.process[i]);
	const pass = ratio <= TARGET;
	console.log(
		`a) child through the subagent tool: median ${median(times.child).toFixed(1)} ms, min ${min(times.child).toFixed(1)} ms (${ROUNDS} rounds)`,
	);
	console.log(
		`b) pi -p with our extension:        median ${median(times.process).toFixed(0)} ms, min ${min(times.process).toFixed(0)} ms (spawn to exit: median ${median(processTotal).toFixed(0)} ms)`,
	);
	console.log(
		`   pi -p with no extensions:        median ${median(times.bare).toFixed(0)} ms, min ${min(times.bare).toFixed(0)} ms (not part of the ratio)`,
	);
	console.log(
		`paired per round a / b: median ${median(paired).toFixed(3)}, min ${min(paired).toFixed(3)}, max ${Math.max(...paired).toFixed(3)}; a / bare pi -p ${(median(times.child) / median(times.bare)).toFixed(3)}`,
	);
	console.log(
		`the child's and pi -p's system prompts are ${sameSystemPrompt ? "identical" : `different (${firstChild?.system.length} vs ${firstProcess?.system.length} characters)`}`,
	);
	console.log(`ratio child / process: ${ratio.toFixed(3)} (target ≤ ${TARGET})`);
	console.log(
		JSON.stringify({
			bench: "child-launch",
			ratio: round(ratio, 3),
			target: TARGET,
			pass,
			childMs: round(median(times.child), 1),
			processMs: round(median(times.process), 1),
			bareProcessMs: round(median(times.bare), 1),
			processTotalMs: round(median(processTotal), 1),
			pairedRatioMedian: round(median(paired), 3),
			pairedRatioMax: round(Math.max(...paired), 3),
			sameSystemPrompt,
			parallelChildren: PARALLEL,
			rssBeforeMiB: round(rssBefore / MiB, 1),
			rssParallelMiB: round(rssAll / MiB, 1),
			rssPeakMiB: round(peak / MiB, 1),
			rssPerChildMiB: round((rssAll - rssBefore) / MiB / PARALLEL, 1),
			heapBeforeMiB: round(heapBefore / MiB, 1),
			heapParallelMiB: round(heapAll / MiB, 1),
			heapPerChildMiB: round((heapAll - heapBefore) / MiB / PARALLEL, 2),
			parallelArrivedMs: round(allArrivedMs, 1),
			rounds: ROUNDS,
		}),
	);
	if (!pass) process.exitCode = 1;
} catch (error) {
	reportFailure("child-launch", TARGET, error);
} finally {
	await dispose?.().catch(() => {});
	await server?.close();
	scratch.cleanup();
}
