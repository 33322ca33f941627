// A child process that swaps a path between inside content and a symlink to an outside file
// as fast as it can (see symlink-swapper.mjs), for races that must really run concurrently.
// Every swapper started here is stopped when the test file ends.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { afterAll, expect } from "vitest";

const SWAPPER = join(import.meta.dirname, "symlink-swapper.mjs");
const swappers = new Set<ChildProcess>();
let hooked = false;

export async function startSwapper(mode: "file" | "dir", repo: string, outside: string): Promise<ChildProcess> {
	if (!hooked) {
		hooked = true;
		afterAll(async () => {
			for (const child of swappers) await stopSwapper(child);
		});
	}
	const child = spawn(process.execPath, [SWAPPER, mode, repo, outside], { stdio: ["ignore", "pipe", "inherit"] });
	swappers.add(child);
	const [first] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
	expect(first.toString()).toBe("ready\n");
	return child;
}

/** Stops a swapper and says how many swaps it made; SIGKILL if it does not go quietly. */
export async function stopSwapper(child: ChildProcess): Promise<number> {
	swappers.delete(child);
	if (child.exitCode !== null || child.signalCode !== null) return 0;
	let out = "";
	child.stdout?.on("data", (chunk: Buffer) => {
		out += chunk.toString();
	});
	const exited = once(child, "exit");
	child.kill("SIGTERM");
	const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
	await exited;
	clearTimeout(timer);
	return Number(/swaps (\d+)/.exec(out)?.[1] ?? 0);
}
