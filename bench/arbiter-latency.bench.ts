// The permission arbiter on a classifier model (`permissions.model`, Pi 1.6's `classify`)
// against the chat arbiter, on the same asks. Offline there is no model service to time, so
// both models answer at once (pi-ai's faux chat provider, a scripted classifier provider on the
// same real ModelRuntime) and what is measured is everything the watchdog and Pi do per ask:
// the prompt or classifier state, the registry's dispatch and auth, reading the decision.
// Target: the classifier path costs no more than the chat path (ratio ≤ 1.0). Each round
// checks that every ask was decided (approve) by the model meant to decide it.
import { join } from "node:path";
import { createProvider, fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import { median, min, reportFailure, round, scratchDir } from "./stats.ts";

const ASKS = 200;
const ROUNDS = 40;
const TARGET = 1.0;

const scratch = scratchDir("pi-watchdog-bench-arbiter-");
process.env.PI_CODING_AGENT_DIR = scratch.root;
process.env.PI_OFFLINE = "1";
const pi = await import("@earendil-works/pi-coding-agent");
const { askArbiter } = await import("../src/permissions/arbiter.ts");

const chat = fauxProvider({ provider: "faux-arbiter", models: [{ id: "chat-judge" }] });
const approveCall = () =>
	fauxAssistantMessage([fauxToolCall("permission_decision", { decision: "approve", reason: "fits the task" })], {
		stopReason: "toolUse",
	});
const classifier = createProvider({
	id: "faux-classifier",
	auth: { apiKey: { name: "bench", resolve: async () => ({ auth: {} }) } },
	models: [
		{
			type: "classifier",
			id: "judge",
			name: "judge",
			api: "bench-classify",
			provider: "faux-classifier",
			baseUrl: "http://127.0.0.1:1",
			input: ["text"],
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
			contextWindow: 32_000,
		},
	],
	classifiers: {
		"bench-classify": {
			classify: async (model: { id: string }) => ({
				api: "bench-classify",
				provider: "faux-classifier",
				model: model.id,
				stopReason: "stop",
				timestamp: Date.now(),
				answers: {
					decision: {
						type: "choice",
						choice: "approve",
						probabilities: { approve: 0.93, deny: 0.07 },
						confidence: 0.93,
					},
				},
			}),
		},
	},
} as Parameters<typeof createProvider>[0]);

try {
	const runtime = await pi.ModelRuntime.create({
		authPath: join(scratch.root, "auth.json"),
		modelsPath: null,
		allowModelNetwork: false,
		refreshOnCreate: false,
	});
	runtime.registerNativeProvider(chat.provider);
	runtime.registerNativeProvider(classifier as never);
	await runtime.refresh({ allowNetwork: false });
	const registry = new pi.ModelRegistry(runtime);
	const asks = Array.from({ length: ASKS }, (_, i) => ({
		registry,
		choice: { kind: "configured" as const, provider: "faux-arbiter", id: "chat-judge", thinking: "off" as const },
		timeoutMs: 20_000,
		role: "worker",
		task: "Update the parser and its tests",
		tool: "edit",
		preview: JSON.stringify({ path: `src/file-${i % 40}.ts`, oldText: "a", newText: `b${i}` }),
		recent: ["read src/parser.ts", "grep parse", "read test/parser.test.ts"],
		rule: `"edit": "ask" (global config)`,
	}));
	/** Milliseconds per ask over one block; throws unless every ask was approved by `model`. */
	const block = async (classify: boolean) => {
		if (!classify) chat.setResponses(asks.map(() => approveCall()));
		const t0 = process.hrtime.bigint();
		for (const ask of asks) {
			const outcome = await askArbiter(
				classify ? { ...ask, classifier: { ref: "faux-classifier/judge", threshold: 0.8 } } : ask,
			);
			const want = classify ? "faux-classifier/judge" : "faux-arbiter/chat-judge";
			if (outcome.kind !== "decision" || outcome.decision !== "approve" || outcome.model !== want)
				throw new Error(`an ask was not approved by ${want}: ${JSON.stringify(outcome)}`);
		}
		return Number(process.hrtime.bigint() - t0) / 1e6 / asks.length;
	};
	await block(false);
	await block(true);
	const c: number[] = [];
	const h: number[] = [];
	for (let r = 0; r < ROUNDS; r++) {
		if (r % 2) {
			h.push(await block(false));
			c.push(await block(true));
		} else {
			c.push(await block(true));
			h.push(await block(false));
		}
	}
	const ratio = median(c) / median(h);
	const paired = c.map((x, i) => x / h[i]);
	console.log(
		`per ask (models answering at once): classifier ${median(c).toFixed(3)} ms, chat ${median(h).toFixed(3)} ms (medians of ${ROUNDS} rounds of ${ASKS} asks)`,
	);
	console.log(`paired per round: median ${median(paired).toFixed(3)}, min ${min(paired).toFixed(3)}`);
	console.log(`ratio classifier / chat: ${ratio.toFixed(3)} (target ≤ ${TARGET})`);
	console.log(
		JSON.stringify({
			bench: "arbiter-latency",
			ratio: round(ratio, 3),
			target: TARGET,
			pass: ratio <= TARGET,
			classifierMs: round(median(c), 4),
			chatMs: round(median(h), 4),
			asks: ASKS,
			rounds: ROUNDS,
		}),
	);
	if (ratio > TARGET) process.exitCode = 1;
} catch (error) {
	reportFailure("arbiter-latency", TARGET, error);
} finally {
	scratch.cleanup();
}
