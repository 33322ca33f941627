// The scan bench's transcript (format A of ../shared/sessions/README.md), also used by the test that
// checks the scan's line shortcuts change nothing: the synthetic agent of bench/synthetic-calls.ts as
// a pi-subagents recorder writes it. One line per assistant turn (thinking, text, 1–6 toolCall blocks),
// tool_start/tool_end lines, one toolResult line per call carrying its text twice (top-level `text` and
// message.content, like the real transcripts; bash output over 50 KB a third time in
// details.truncation), edit diffs in details, stderr and copy-turn lines. Line sizes follow the real
// dev transcripts (toolResult lines: median ~3 KB, p90 ~18 KB, up to ~150 KB).
import { closeSync, openSync, writeSync } from "node:fs";
import { callStream, type RawCall } from "./synthetic-calls.ts";
import { ROOT, rng } from "./synthetic-vocab.ts";

export interface Generated {
	bytes: number;
	lines: number;
	calls: number;
	turns: number;
	nonAsciiLines: number;
	resultLineBytes: number[];
}

/** Writes the transcript to `file`, about `targetBytes` long (whole turns, so a little more). */
export function generateTranscript(file: string, targetBytes: number): Generated {
	const r = rng(7);
	const stream = callStream({ seed: 3 });
	const runId = "5e1f00aa";
	let clock = 1_783_800_000_000;
	const env = (recordType: string, extra: Record<string, unknown>) => ({
		version: 1,
		recordType,
		source: "foreground",
		runId,
		agent: "builder",
		childIndex: 0,
		cwd: ROOT,
		ts: clock,
		timestamp: new Date(clock).toISOString(),
		...extra,
	});
	const prose = (n: number) => {
		const words =
			"the test fails because order total is computed before the coupon applies so I will read the service then check where refunds are queued and retry the webhook handler once more with a smaller batch".split(
				" ",
			);
		let s = "";
		for (let i = 0; i < n; i++) s += (i ? " " : "") + words[Math.floor(r() * words.length)];
		return s;
	};
	const fd = openSync(file, "w");
	const out: string[] = [];
	let pending = 0;
	const g: Generated = { bytes: 0, lines: 0, calls: 0, turns: 0, nonAsciiLines: 0, resultLineBytes: [] };
	const emit = (value: unknown) => {
		const line = JSON.stringify(value);
		const bytes = Buffer.byteLength(line) + 1;
		if (bytes !== line.length + 1) g.nonAsciiLines++;
		g.bytes += bytes;
		g.lines++;
		out.push(line);
		pending += bytes;
		if (pending > 4 << 20) flush();
		return bytes;
	};
	const flush = () => {
		if (out.length) writeSync(fd, `${out.join("\n")}\n`);
		out.length = 0;
		pending = 0;
	};
	try {
		const task = `Fix the checkout total so that coupons apply once, add tests, and run the suite. ${prose(300)}\n\n## Acceptance Contract\nAcceptance level: attested\nFinish with a fenced JSON block tagged \`acceptance-report\`.\n${prose(200)}`;
		emit(
			env("message", {
				sourceEventType: "initial_prompt",
				role: "user",
				text: task,
				message: { role: "user", content: [{ type: "text", text: task }] },
			}),
		);
		emit(
			env("message", {
				sourceEventType: "message_end",
				role: "user",
				text: `Task: ${task}`,
				message: { role: "user", content: [{ type: "text", text: `Task: ${task}` }], timestamp: clock },
			}),
		);
		emit(
			env("message", {
				sourceEventType: "message_end",
				role: "custom",
				text: "⧉ copy user: /cp df8078",
				message: {
					role: "custom",
					customType: "copy-turn",
					content: "⧉ copy user: /cp df8078",
					display: true,
					details: { hash: "df8078", role: "user" },
					timestamp: clock,
				},
			}),
		);
		let ids = 0;
		const idStyle = r() < 0.5;
		while (g.bytes < targetBytes) {
			// One assistant turn: mostly one call, sometimes several in parallel.
			const w = r();
			const n = w < 0.8 ? 1 : w < 0.88 ? 2 : w < 0.94 ? 3 : 4 + Math.floor(r() * 3);
			const calls: Array<RawCall & { id: string }> = [];
			for (let k = 0; k < n; k++) {
				const c = stream.next().value;
				const id =
					idStyle || r() < 0.3
						? `functions.${c.name}:${ids++}`
						: `call_${Math.floor(r() * 2 ** 48)
								.toString(16)
								.padStart(12, "0")}${(ids++).toString(16).padStart(12, "0")}`;
				calls.push({ ...c, id });
			}
			const content: unknown[] = [];
			if (r() < 0.25)
				content.push({
					type: "thinking",
					thinking: `\u001b[38;2;138;190;183mThinking:\u001b[39m \u001b[38;2;128;128;128m${prose(20 + Math.floor(r() * 200))}\u001b[39m`,
					thinkingSignature: "reasoning_content",
				});
			if (r() < 0.3) content.push({ type: "text", text: prose(10 + Math.floor(r() * 120)) });
			for (const c of calls) content.push({ type: "toolCall", id: c.id, name: c.name, arguments: c.args });
			const input = 3000 + g.turns * 7;
			const usage = {
				input,
				output: 91,
				cacheRead: 0,
				cacheWrite: 0,
				reasoning: 60,
				totalTokens: input + 91,
				cost: { input: input * 1e-6, output: 0.0003, cacheRead: 0, cacheWrite: 0, total: input * 1e-6 + 0.0003 },
			};
			clock += 1500 + Math.floor(r() * 20_000);
			emit(
				env("message", {
					sourceEventType: "message_end",
					role: "assistant",
					model: "kimi-k2.7-code",
					stopReason: "toolUse",
					usage: { input, output: 91, cacheRead: 0, cacheWrite: 0, cost: usage.cost.total },
					message: {
						role: "assistant",
						content,
						api: "openai-completions",
						provider: "tokenin",
						model: "kimi-k2.7-code",
						usage,
						stopReason: "toolUse",
						timestamp: clock - 5,
						responseId: `chatcmpl-${g.turns}`,
					},
				}),
			);
			g.turns++;
			for (const c of calls) {
				const first = Object.values(c.args).find((v) => typeof v === "string") as string | undefined;
				emit(
					env("tool_start", {
						sourceEventType: "tool_execution_start",
						toolName: c.name,
						argsPreview: first && first.length > 60 ? `${first.slice(0, 57)}...` : (first ?? ""),
					}),
				);
			}
			for (const c of calls) {
				clock += 10 + Math.floor(r() * 3000);
				emit(env("tool_end", { sourceEventType: "tool_execution_end", toolName: c.name }));
				const message: Record<string, unknown> = {
					role: "toolResult",
					toolCallId: c.id,
					toolName: c.name,
					content: [{ type: "text", text: c.text }],
				};
				if (c.details) message.details = c.details;
				message.isError = c.isError;
				message.timestamp = clock;
				g.resultLineBytes.push(
					emit(env("message", { sourceEventType: "message_end", role: "toolResult", text: c.text, message })),
				);
				g.calls++;
			}
			if (r() < 0.025)
				emit(
					env("stderr", {
						text: `Warning: Extension "copy-turn" exists in both ~/.selesai/agent/extensions and ~/.pi/agent/extensions; loaded the selesai copy, skipped the other.`,
					}),
				);
			if (r() < 0.005)
				emit(
					env("message", {
						sourceEventType: "message_end",
						role: "custom",
						text: "⧉ copy assistant: /cp 1a2b3c",
						message: {
							role: "custom",
							customType: "copy-turn",
							content: "⧉ copy assistant: /cp 1a2b3c",
							display: true,
							details: { hash: "1a2b3c", role: "assistant" },
							timestamp: clock,
						},
					}),
				);
		}
		const report = `Done.\n\n\`\`\`acceptance-report\n${JSON.stringify({ criteriaSatisfied: [{ id: "criterion-1", status: "satisfied", evidence: "tests pass" }], changedFiles: ["src/orders/checkout.ts"], commandsRun: [{ command: "npx vitest run", result: "passed", summary: "all green" }] }, null, 2)}\n\`\`\``;
		emit(
			env("message", {
				sourceEventType: "message_end",
				role: "assistant",
				stopReason: "stop",
				message: { role: "assistant", content: [{ type: "text", text: report }], stopReason: "stop", timestamp: clock },
			}),
		);
		flush();
	} finally {
		closeSync(fd);
	}
	return g;
}
