// `--watch`: passes one after another (never two at once), one watcher per agent dir on this
// machine: a lock file names the holder; a second watcher says who holds it and leaves. A lock
// whose process is gone is taken over. And the systemd user unit that keeps a watcher running.
import { hostname } from "node:os";
import { join } from "node:path";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { processAlive, readJsonIn, watchdogDir } from "./files.ts";

export function lockPath(agentDir: string): string {
	return join(watchdogDir(agentDir), "fleet-watch.lock");
}

/** Takes the watch lock; the reason when another live watcher holds it. */
export function takeWatchLock(agentDir: string): { ok: true; release: () => void } | { ok: false; holder: string } {
	const path = lockPath(agentDir);
	mkdirSync(watchdogDir(agentDir), { recursive: true, mode: 0o700 });
	for (let attempt = 0; attempt < 2; attempt++) {
		try {
			const fd = openSync(path, "wx", 0o600);
			writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }));
			closeSync(fd);
			return { ok: true, release: () => rmSync(path, { force: true }) };
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") return { ok: false, holder: (error as Error).message };
		}
		const held = readJsonIn(path, watchdogDir(agentDir), 4096);
		const pid = typeof held?.pid === "number" ? held.pid : undefined;
		if (pid !== undefined && processAlive(pid))
			return {
				ok: false,
				holder: `process ${pid} on ${String(held?.host ?? "?")} since ${String(held?.startedAt ?? "?")}`,
			};
		rmSync(path, { force: true }); // left by a watcher that died
	}
	return { ok: false, holder: "the lock could not be taken" };
}

/** Runs `pass` every `everyMs` (counted from each pass's end) until `signal` ends it. */
export async function watchLoop(pass: () => Promise<void>, everyMs: number, signal: AbortSignal): Promise<void> {
	while (!signal.aborted) {
		await pass();
		await new Promise<void>((done) => {
			const timer = setTimeout(done, everyMs);
			signal.addEventListener("abort", () => {
				clearTimeout(timer);
				done();
			});
		});
	}
}

export function systemdUnit(execPath: string, bin: string, env: NodeJS.ProcessEnv, everyText: string): string {
	const agentDir = env.PI_CODING_AGENT_DIR ? `Environment=PI_CODING_AGENT_DIR=${env.PI_CODING_AGENT_DIR}\n` : "";
	return `# ~/.config/systemd/user/pi-watchdog-fleet.service
# Install: systemctl --user daemon-reload && systemctl --user enable --now pi-watchdog-fleet
[Unit]
Description=pi-watchdog fleet watcher (nudges idle agent sessions)

[Service]
ExecStart=${execPath} ${bin} fleet --watch --nudge --every ${everyText}
${agentDir}Restart=on-failure
RestartSec=30

[Install]
WantedBy=default.target`;
}
