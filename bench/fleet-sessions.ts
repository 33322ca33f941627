// The fleet bench's session files: Pi sessions of long-tailed sizes (most 20–200 KB, a tenth over
// 250 KB, the largest about 1.3 MB at 1,000 files), each ending one of four ways (done, an
// announced step, a question, mid-run). Seeded: the same files every time.
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { rng } from "./synthetic-vocab.ts";

const TOTAL_BYTES_PER_FILE = 100_000;

/** Writes `count` session files into `dir`; returns their paths and total bytes. */
export function writeFleetSessions(dir: string, count: number): { files: string[]; total: number } {
	const r = rng(11);
	const files: string[] = [];
	let total = 0;
	sizes(r, count).forEach((bytes, n) => {
		const path = join(dir, `2026-12-01T10-00-00-000Z_bench-${String(n).padStart(4, "0")}.jsonl`);
		total += writeSession(path, bytes, r, n);
		files.push(path);
	});
	return { files, total };
}

function sizes(r: () => number, files: number): number[] {
	// A Pareto-like spread scaled to the total.
	const raw = Array.from({ length: files }, () => 1 / (0.05 + r()) ** 1.6);
	const sum = raw.reduce((a, b) => a + b, 0);
	return raw.map((x) => Math.max(4000, Math.round((x / sum) * TOTAL_BYTES_PER_FILE * files)));
}

function writeSession(path: string, bytes: number, r: () => number, n: number): number {
	const fd = openSync(path, "w");
	let written = 0;
	const put = (o: unknown) => {
		const line = `${JSON.stringify(o)}\n`;
		writeSync(fd, line);
		written += line.length;
	};
	put({ type: "session", version: 3, id: `bench-${n}`, timestamp: "2026-12-01T10:00:00Z", cwd: `/work/p${n % 37}` });
	put({ type: "model_change", id: "m0", parentId: null, provider: "local", modelId: "main" });
	let id = 0;
	const msg = (message: unknown) => put({ type: "message", id: `e${++id}`, parentId: null, message });
	while (written < bytes) {
		msg({ role: "user", content: [{ type: "text", text: `Fix the failing order test number ${id} in the service` }] });
		const calls = 1 + Math.floor(r() * 6);
		for (let c = 0; c < calls && written < bytes; c++) {
			const callId = `c${id}-${c}`;
			const command = r() < 0.5 ? "npm test" : `cat src/file${c}.ts`;
			msg({
				role: "assistant",
				content: [
					{ type: "text", text: "Checking." },
					{ type: "toolCall", id: callId, name: "bash", arguments: { command } },
				],
				stopReason: "toolUse",
			});
			const size = Math.floor(200 + r() ** 3 * 40_000);
			msg({
				role: "toolResult",
				toolCallId: callId,
				toolName: "bash",
				content: [{ type: "text", text: "x".repeat(size) }],
				isError: false,
			});
		}
		msg({ role: "assistant", content: [{ type: "text", text: "Progress made on this step." }], stopReason: "stop" });
	}
	const ending = n % 4;
	if (ending === 0)
		msg({ role: "assistant", content: [{ type: "text", text: "Done: the test passes now." }], stopReason: "stop" });
	else if (ending === 1)
		msg({ role: "assistant", content: [{ type: "text", text: "Let me run the tests now." }], stopReason: "stop" });
	else if (ending === 2)
		msg({ role: "assistant", content: [{ type: "text", text: "Which fix do you prefer?" }], stopReason: "stop" });
	else
		msg({
			role: "assistant",
			content: [{ type: "toolCall", id: "last", name: "bash", arguments: { command: "make" } }],
			stopReason: "toolUse",
		});
	closeSync(fd);
	return written;
}
