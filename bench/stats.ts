// Small figures shared by the benchmarks.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Milliseconds since a process.hrtime.bigint() reading. */
export const ms = (from: bigint): number => Number(process.hrtime.bigint() - from) / 1e6;

export const median = (xs: number[]): number => {
	const s = [...xs].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

export const min = (xs: number[]): number => Math.min(...xs);

export const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

/** Prints why a benchmark could not finish, and a last JSON line that says it did not pass. */
export function reportFailure(bench: string, target: number, error: unknown): void {
	console.log(`${bench} benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
	console.log(
		JSON.stringify({ bench, target, pass: false, error: error instanceof Error ? error.message : String(error) }),
	);
	process.exitCode = 1;
}

export async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
	const t = process.hrtime.bigint();
	const value = await fn();
	return { ms: ms(t), value };
}

/** A temp folder for a benchmark's data, removed on cleanup() and when the run is interrupted. */
export function scratchDir(prefix: string): { root: string; cleanup: () => void } {
	const root = mkdtempSync(join(tmpdir(), prefix));
	const cleanup = () => rmSync(root, { recursive: true, force: true });
	const onSignal = (signal: NodeJS.Signals) => {
		cleanup();
		process.kill(process.pid, signal);
	};
	process.once("SIGINT", onSignal);
	process.once("SIGTERM", onSignal);
	return {
		root,
		cleanup: () => {
			process.off("SIGINT", onSignal);
			process.off("SIGTERM", onSignal);
			cleanup();
		},
	};
}
