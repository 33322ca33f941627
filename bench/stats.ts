// Small figures shared by the benchmarks.

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
	console.log(JSON.stringify({ bench, target, pass: false, error: error instanceof Error ? error.message : String(error) }));
	process.exitCode = 1;
}
