// What a level of nesting costs (issue 30). Same method as child-launch.bench.ts: a parent Pi
// session in this process with our extension, a local OpenAI-compatible server in this process
// (one clock), alternating rounds. The launch overhead of one child is the time from the server
// sending the launching model's `subagent` tool call to the child's first model request
// arriving:
//   a) DEPTH 1: the parent's model launches a scout;
//   b) DEPTH 2: the parent's model launches a lead, whose model launches a scout (timed from the
//      lead's tool call: the overhead of the second level alone).
// The ratio b / a says what a child launching a child costs against the parent launching one.
// Memory (printed, no target): the resident set and live heap of this process before a lead
// launches 8 parallel scouts and while all 8 grandchildren are running (the server holds each
// first request until all 8 arrived). Every launch is checked: each scout's request carries the
// scout's prompt and tools, and every child ends `done`.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { type Arrival, type BenchServer, bounded, startServer, textOf } from "./bench-server.ts";
import { openParentSession } from "./parent-session.ts";
import { commitAll } from "./git-repo.ts";
import { median, min, reportFailure, round, scratchDir } from "./stats.ts";

const ROUNDS = 9;
const PARALLEL = 8;
const TARGET = 3;
const MiB = 1024 * 1024;
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const REPO_ROOT = resolve(import.meta.dirname, "..");
const EXTENSION_PATH = join(REPO_ROOT, "src/extension.ts");
const SCOUT_TOOLS = ["find", "grep", "ls", "read"];
const TASK = "Find where the greeting is defined and report its file and line.";
const ANSWER = "The greeting is defined in src/greet.ts:1.";

const scratch = scratchDir("pi-watchdog-bench-nested-");
const agentDir = join(scratch.root, "agent");
const repo = join(scratch.root, "repo");
process.env.PI_CODING_AGENT_DIR = agentDir;
process.env.PI_OFFLINE = "1";
const { ProjectTrustStore } = await import("@earendil-works/pi-coding-agent");

let dispose: (() => Promise<void>) | undefined;
let server: BenchServer | undefined;
try {
	mkdirSync(join(repo, "src"), { recursive: true });
	writeFileSync(join(repo, "src/greet.ts"), "export const greet = (name: string) => `hello ${name}`;\n");
	commitAll(repo, "greeter");
	const scoutBody = readFileSync(join(REPO_ROOT, "agents", "scout.md"), "utf8")
		.split("\n---")
		.slice(1)
		.join("\n---");

	// What each model does: the parent and the lead launch what they are told, then close their turn.
	let parentLaunch: unknown;
	let leadLaunch: unknown;
	let hold: Promise<void> | undefined;
	server = await startServer(async (a) => {
		if (a.model === "parent" || a.model === "lead") {
			// The lead passes its children's results on, so the parent's result shows them.
			if (a.lastRole === "tool") return { text: a.model === "lead" ? a.lastText : "Reported back." };
			return { toolCall: { name: "subagent", args: a.model === "parent" ? parentLaunch : leadLaunch } };
		}
		if (a.model === "child") {
			if (hold) await hold;
			return { text: ANSWER };
		}
		return { text: "Nothing to flag." };
	});
	const srv = server;
	mkdirSync(join(agentDir, "agents"), { recursive: true });
	const model = (id: string, reasoning = false) => ({ id, name: id, reasoning, contextWindow: 32000, maxTokens: 2048 });
	const models = [model("parent"), model("lead"), model("child"), model("reviewer", true)];
	const local = { baseUrl: srv.baseUrl, api: "openai-completions", apiKey: "bench-key", models };
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { local } }, null, 2));
	const watchdog = {
		enabled: true,
		main: { model: "local/reviewer" },
		lsp: { enabled: false },
		children: { enabled: true, concurrency: PARALLEL + 2 },
	};
	const settings = { retry: { enabled: false }, compaction: { enabled: false }, subagents: { watchdog } };
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify(settings, null, 2));
	writeFileSync(
		join(agentDir, "agents", "lead.md"),
		"---\nname: lead\ndescription: launches scouts\nmodel: local/lead\ntools: read, subagent\n---\nLaunch as told.\n",
	);
	new ProjectTrustStore(agentDir).set(repo, true);

	const parent = await openParentSession({
		agentDir,
		repo,
		extensionPath: EXTENSION_PATH,
		model: "parent",
		tools: ["read", "subagent"],
	});
	const { session, errors } = parent;
	dispose = parent.dispose;
	const lastResult = () =>
		textOf(
			(session.messages as Array<{ role: string; toolName?: string; content: unknown }>)
				.filter((m) => m.role === "toolResult" && m.toolName === "subagent")
				.at(-1)?.content,
		);
	const scoutRequest = (a: Arrival | undefined, what: string): Arrival => {
		if (!a) throw new Error(`${what}: no scout request reached the server`);
		if (!a.system.includes(scoutBody.trim().slice(0, 200))) throw new Error(`${what}: the scout's prompt is missing`);
		if (a.tools.join(",") !== SCOUT_TOOLS.join(","))
			throw new Error(`${what}: the scout got tools ${a.tools.join(", ")}`);
		return a;
	};
	const scout = (part = "") => ({ agent: "scout", task: `${TASK}${part}`, model: "local/child" });

	/** One launch at `depth`; the overhead from the launcher's tool call going out to the scout's first request. */
	async function launchAt(depth: 1 | 2, what: string): Promise<number> {
		parentLaunch = depth === 1 ? scout() : { agent: "lead", task: "Send a scout." };
		leadLaunch = scout();
		const before = srv.arrivals.length;
		await bounded(session.prompt("Go."), `${what}: the parent's turn`);
		const mine = srv.arrivals.slice(before);
		const launcher = mine.find((a) => a.model === (depth === 1 ? "parent" : "lead") && a.lastRole !== "tool");
		const child = scoutRequest(
			mine.find((a) => a.model === "child"),
			what,
		);
		const result = lastResult();
		if ((result.match(/: done/g) ?? []).length < depth || !result.includes(ANSWER))
			throw new Error(`${what}: unexpected result: ${result.slice(0, 400)}`);
		if (errors.length) throw new Error(`${what}: extension errors: ${JSON.stringify(errors).slice(0, 300)}`);
		if (!launcher?.repliedAt) throw new Error(`${what}: the launching model's answer was not seen going out`);
		return Number(child.at - launcher.repliedAt) / 1e6;
	}

	await launchAt(1, "warm-up");
	await launchAt(2, "warm-up");

	// Memory: a lead with 8 scouts of its own, all running at once.
	gc();
	const rssBefore = process.memoryUsage().rss;
	const heapBefore = process.memoryUsage().heapUsed;
	let release = () => {};
	hold = new Promise<void>((done) => (release = done));
	parentLaunch = { agent: "lead", task: "Send eight scouts." };
	leadLaunch = { tasks: Array.from({ length: PARALLEL }, (_, i) => scout(` (part ${i + 1})`)) };
	const before = srv.arrivals.length;
	const turn = bounded(session.prompt("Go, eight."), "memory: the parent's turn");
	let rssAll = 0;
	let heapAll = 0;
	try {
		const deadline = Date.now() + 60_000;
		while (srv.arrivals.slice(before).filter((a) => a.model === "child").length < PARALLEL) {
			if (Date.now() > deadline) throw new Error("memory: the 8 grandchildren did not all reach the server");
			await new Promise((r) => setTimeout(r, 5));
		}
		gc();
		rssAll = process.memoryUsage().rss;
		heapAll = process.memoryUsage().heapUsed;
	} finally {
		release();
		hold = undefined;
	}
	await turn;
	const eight = lastResult();
	if ((eight.match(/scout#\d \(scout, local\/child\): done/g) ?? []).length !== PARALLEL)
		throw new Error(`memory: not every grandchild ended done: ${eight.slice(0, 600)}`);
	console.log(
		`memory (this process: the parent, a lead and ${PARALLEL} grandchildren): RSS ${(rssBefore / MiB).toFixed(0)} → ${(rssAll / MiB).toFixed(0)} MiB (+${((rssAll - rssBefore) / MiB / PARALLEL).toFixed(1)} MiB per grandchild, the lead included); live heap ${(heapBefore / MiB).toFixed(1)} → ${(heapAll / MiB).toFixed(1)} MiB`,
	);

	const times: Record<1 | 2, number[]> = { 1: [], 2: [] };
	for (let r = 0; r < ROUNDS; r++) {
		const order: Array<1 | 2> = r % 2 ? [2, 1] : [1, 2];
		for (const d of order) times[d].push(await launchAt(d, `round ${r + 1} depth ${d}`));
		console.log(`round ${r + 1}: depth 1 ${times[1][r].toFixed(1)} ms, depth 2 ${times[2][r].toFixed(1)} ms`);
	}
	const ratio = median(times[2]) / median(times[1]);
	console.log(`a) depth 1: median ${median(times[1]).toFixed(1)} ms, min ${min(times[1]).toFixed(1)} ms`);
	console.log(`b) depth 2: median ${median(times[2]).toFixed(1)} ms, min ${min(times[2]).toFixed(1)} ms`);
	console.log(`ratio depth 2 / depth 1: ${ratio.toFixed(3)} (target ≤ ${TARGET})`);
	console.log(
		JSON.stringify({
			bench: "nested-launch",
			ratio: round(ratio, 3),
			target: TARGET,
			pass: ratio <= TARGET,
			depth1Ms: round(median(times[1]), 1),
			depth2Ms: round(median(times[2]), 1),
			grandchildren: PARALLEL,
			rssBeforeMiB: round(rssBefore / MiB, 1),
			rssGrandchildrenMiB: round(rssAll / MiB, 1),
			rssPerGrandchildMiB: round((rssAll - rssBefore) / MiB / PARALLEL, 1),
			heapBeforeMiB: round(heapBefore / MiB, 1),
			heapGrandchildrenMiB: round(heapAll / MiB, 1),
			rounds: ROUNDS,
		}),
	);
	if (ratio > TARGET) process.exitCode = 1;
} catch (error) {
	reportFailure("nested-launch", TARGET, error);
} finally {
	await dispose?.().catch(() => {});
	await server?.close();
	scratch.cleanup();
}
