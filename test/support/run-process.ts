// Runs a command to its end with stdin closed, collecting its output, killed outright when it
// runs past its time (a hang fails the test instead of stalling the run).
import { spawn } from "node:child_process";

export interface Ran {
	code: number | null;
	stdout: string;
	stderr: string;
}

export function runProcess(
	command: string,
	args: string[],
	options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Ran> {
	return new Promise((resolvePromise, reject) => {
		const child = spawn(command, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => (stdout += d));
		child.stderr.on("data", (d) => (stderr += d));
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`${command} ${args.join(" ")} timed out.\nstdout: ${stdout}\nstderr: ${stderr}`));
		}, options.timeoutMs ?? 30_000);
		child.on("error", (error) => {
			clearTimeout(timer);
			reject(error);
		});
		child.on("exit", (code) => {
			clearTimeout(timer);
			resolvePromise({ code, stdout, stderr });
		});
	});
}
