// Runs grep's regular expression in a worker thread. A pattern that backtracks
// catastrophically would otherwise freeze Pi's main thread, and neither a timeout nor the
// abort signal can interrupt a running RegExp; a worker can simply be terminated.
import { Worker } from "node:worker_threads";

export interface LineHit {
	line: number;
	text: string;
}

export type MatchResult = { ok: true; hits: LineHit[] } | { ok: false; timedOut: boolean; error: string };

export interface LineMatcher {
	/** Matching lines of `text` (at most `max`), each cut to about `width` characters around the match. */
	match(text: string, max: number): Promise<MatchResult>;
	close(): Promise<void>;
}

// Plain CommonJS so that it runs the same under Node's type stripping, jiti and vitest.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const re = new RegExp(workerData.source, workerData.flags);
const width = workerData.width;
function excerpt(line, at) {
	if (line.length <= width) return line;
	const start = Math.max(0, Math.min(at - Math.floor(width / 4), line.length - width));
	return (start > 0 ? "…" : "") + line.slice(start, start + width) + (start + width < line.length ? "…" : "");
}
parentPort.on("message", ({ text, max }) => {
	const hits = [];
	const lines = text.split(/\\r?\\n/);
	for (let i = 0; i < lines.length && hits.length < max; i++) {
		const m = re.exec(lines[i]);
		if (m) hits.push({ line: i + 1, text: excerpt(lines[i], m.index) });
	}
	parentPort.postMessage(hits);
});
`;

export function createLineMatcher(regex: RegExp, options: { timeoutMs: number; width: number }): LineMatcher {
	const worker = new Worker(WORKER_SOURCE, {
		eval: true,
		workerData: { source: regex.source, flags: regex.flags.replace(/[gy]/g, ""), width: options.width },
	});
	worker.unref();
	let stopped: string | null = null;
	let pending: ((result: MatchResult) => void) | null = null;
	const settle = (result: MatchResult) => {
		const resolve = pending;
		pending = null;
		resolve?.(result);
	};
	worker.on("message", (hits: LineHit[]) => settle({ ok: true, hits }));
	worker.on("error", (error) => {
		stopped = `the search worker failed: ${error.message}`;
		settle({ ok: false, timedOut: false, error: stopped });
	});
	worker.on("exit", () => {
		stopped ??= "the search was stopped";
		settle({ ok: false, timedOut: false, error: stopped });
	});

	return {
		match(text, max) {
			if (stopped) return Promise.resolve({ ok: false, timedOut: false, error: stopped });
			return new Promise((resolve) => {
				const timer = setTimeout(() => {
					stopped = `the regular expression ran longer than ${options.timeoutMs} ms on one file`;
					settle({ ok: false, timedOut: true, error: stopped });
					void worker.terminate();
				}, options.timeoutMs);
				pending = (result) => {
					clearTimeout(timer);
					resolve(result);
				};
				worker.postMessage({ text, max });
			});
		},
		async close() {
			stopped ??= "the search was stopped";
			await worker.terminate();
		},
	};
}
