// The claims checker and the unfinished-stop detector at the settle boundary must take ≤ 5 ms
// for a session of 1,000 tool calls. Measured on a branch of Pi session entries made from the
// synthetic agent of bench/synthetic-calls.ts (assistant turns with toolCall blocks, toolResult
// messages with realistic result sizes, a closing report with an acceptance-report block): the
// whole settle step, from the branch's entries (pairing, call records, facts) to the findings.
// The monitor keeps what it worked out about earlier calls between settles (the branch only
// grows), so the measured settle is the real one: a 1,000-call session whose last run added 20
// calls, the monitor having settled once before them. Alongside, for information: the cold
// settle (all 1,000 calls worked out at once, as after a restart), the same at 10,000 calls, and
// JSON.parse of the branch's serialised entries (what reading it from a file would cost at least).
import { EvidenceWatch, type IdleSettings } from "../src/evidence/index.ts";
import { callStream, take } from "./synthetic-calls.ts";
import { median, reportFailure, round } from "./stats.ts";

const TARGET_MS = 5;
const ROUNDS = 41;

function branch(calls: number): Array<{ type: string; message: unknown }> {
	const entries: Array<{ type: string; message: unknown }> = [
		{
			type: "message",
			message: {
				role: "user",
				content: [
					{ type: "text", text: "Fix the checkout total so coupons apply once, add tests, and run the suite." },
				],
			},
		},
	];
	let i = 0;
	for (const c of take(callStream({ seed: 11 }), calls)) {
		const id = `call_${i++}`;
		entries.push({
			type: "message",
			message: {
				role: "assistant",
				content: [
					{ type: "text", text: "Checking the next piece." },
					{ type: "toolCall", id, name: c.name, arguments: c.args },
				],
				stopReason: "toolUse",
			},
		});
		entries.push({
			type: "message",
			message: {
				role: "toolResult",
				toolCallId: id,
				toolName: c.name,
				content: [{ type: "text", text: c.text }],
				isError: c.isError,
				...(c.details ? { details: c.details } : {}),
			},
		});
	}
	const report = {
		changedFiles: ["src/orders/checkout.ts", "test/checkout.test.ts"],
		commandsRun: [{ command: "npx vitest run", result: "passed", summary: "all green" }],
	};
	entries.push({
		type: "message",
		message: {
			role: "assistant",
			content: [
				{
					type: "text",
					text: `Implemented the fix. All tests pass. Next I'll update the docs.\n\n\`\`\`acceptance-report\n${JSON.stringify(report)}\n\`\`\``,
				},
			],
			stopReason: "stop",
		},
	});
	return entries;
}

const SETTINGS: IdleSettings = {
	main: true,
	children: true,
	policy: "keep",
	cooldownMs: 0,
	maxNudges: 1000,
	stallMs: 60_000,
};

const RUN_CALLS = 20;

/** `warm`: the monitor settled once before the last run's calls (2 entries per call, plus the closing message). */
function measure(
	entries: Array<{ type: string; message: unknown }>,
	warm: boolean,
): { ms: number[]; findings: number } {
	const out: number[] = [];
	let findings = 0;
	const before = entries.slice(0, entries.length - 1 - 2 * RUN_CALLS);
	for (let r = 0; r < ROUNDS; r++) {
		const watch = new EvidenceWatch();
		if (warm) watch.atSettle(before, SETTINGS, { role: "worker", mode: "rpc", outcome: "completed", now: Date.now() });
		const t = process.hrtime.bigint();
		const result = watch.atSettle(entries, SETTINGS, {
			role: "worker",
			mode: "rpc",
			outcome: "completed",
			now: Date.now(),
		});
		out.push(Number(process.hrtime.bigint() - t) / 1e6);
		findings = result.findings.length;
	}
	return { ms: out.slice(5), findings }; // the first rounds warm the JIT
}

try {
	const small = branch(1000);
	const large = branch(10_000);
	const json = JSON.stringify(small);
	const parse: number[] = [];
	for (let r = 0; r < ROUNDS; r++) {
		const t = process.hrtime.bigint();
		JSON.parse(json);
		parse.push(Number(process.hrtime.bigint() - t) / 1e6);
	}
	const a = measure(small, true);
	const cold = measure(small, false);
	const b = measure(large, true);
	const settle = median(a.ms);
	const ratio = settle / TARGET_MS;
	console.log(
		`claims + idle checks at settle, 1,000-call session, the last run ${RUN_CALLS} calls: median ${settle.toFixed(2)} ms (max ${Math.max(...a.ms).toFixed(2)}), ${a.findings} finding(s)`,
	);
	console.log(
		`  for information: cold (all 1,000 calls at once) median ${median(cold.ms).toFixed(2)} ms; 10,000-call session median ${median(b.ms).toFixed(2)} ms; JSON.parse of the 1,000-call branch (${(json.length / 1e6).toFixed(1)} MB) median ${median(parse.slice(5)).toFixed(2)} ms`,
	);
	console.log(`ratio settle / ${TARGET_MS} ms: ${ratio.toFixed(3)} (target ≤ 1)`);
	console.log(
		JSON.stringify({
			bench: "evidence-settle",
			ratio: round(ratio, 3),
			target: 1,
			pass: ratio <= 1,
			medianMs: round(settle, 3),
			maxMs: round(Math.max(...a.ms), 3),
			calls: 1000,
			runCalls: RUN_CALLS,
			coldMedianMs: round(median(cold.ms), 3),
			medianMs10k: round(median(b.ms), 3),
			parseMs: round(median(parse.slice(5)), 3),
			findings: a.findings,
		}),
	);
} catch (error) {
	reportFailure("evidence-settle", 1, error);
}
