// `pi-watchdog fleet …` from a terminal: settings from the agent dir's settings.json (found by
// Pi's rule, as `scan` finds it, so the CLI runs without loading the host), a model registry
// built from models.json and auth.json (the host loaded then, on a Node it runs on) only when a
// decider model is set and something is idle, then one pass or the watch loop.
import { join } from "node:path";
import { PACKAGE_DIR } from "../util/index.ts";
import type { Registry } from "../models/index.ts";
import { agentDir as piAgentDir } from "../scan/index.ts";
import { SettingsStore } from "../settings/index.ts";
import { FLEET_USAGE, type FleetEnv, fleetOnce, parseFleetArgs } from "./command.ts";
import { systemdUnit, takeWatchLock, watchLoop } from "./watch.ts";

// biome-ignore lint/suspicious/noExplicitAny: the host's classes, loaded on demand
type Host = { ModelRuntime?: any; ModelRegistry?: any };

/** The host package, on a Node it supports (Pi needs 22.19 or later; older ones crash loading it). */
async function host(): Promise<Host> {
	const [major, minor] = process.versions.node.split(".").map(Number);
	if ((major ?? 0) < 22 || (major === 22 && (minor ?? 0) < 19)) return {};
	try {
		return (await import("@earendil-works/pi-coding-agent")) as Host;
	} catch {
		return {};
	}
}

export async function fleetMain(
	argv: string[],
	out: (s: string) => void = (s) => process.stdout.write(s),
	err: (s: string) => void = (s) => process.stderr.write(s),
	env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
	if (argv.includes("--help") || argv.includes("-h")) {
		out(`${FLEET_USAGE}\n`);
		return 0;
	}
	const args = parseFleetArgs(argv);
	if (typeof args === "string") {
		err(`${args}\n${FLEET_USAGE}\n`);
		return 2;
	}
	const every = args.everyMs ?? 180_000;
	if (args.systemdUnit) {
		const bin = join(PACKAGE_DIR, "bin", "pi-watchdog.mjs");
		out(`${systemdUnit(process.execPath, bin, env, `${Math.round(every / 1000)}s`)}\n`);
		return 0;
	}
	const agentDir = piAgentDir(env);
	// Only the user's file counts here: a machine-wide view belongs to no project.
	const store = new SettingsStore({ agentDir: () => agentDir, configDirName: ".pi" });
	const resolved = store.resolve({ cwd: process.cwd(), trusted: false });
	if (resolved.errors.length)
		err(
			`pi-watchdog fleet: settings problems, defaults used where they are: ` +
				`${resolved.errors.map((e) => e.message).join("; ")}\n`,
		);
	const fleetEnv: FleetEnv = { agentDir, settings: resolved.settings, env, registry: () => registry(agentDir) };
	if (!args.watch) {
		const once = await fleetOnce(args, fleetEnv);
		out(`${once.text}\n`);
		return once.code;
	}
	const lock = takeWatchLock(agentDir);
	if (!lock.ok) {
		err(`pi-watchdog fleet --watch: another watcher runs already (${lock.holder})\n`);
		return 1;
	}
	const stop = new AbortController();
	const onSignal = () => stop.abort();
	process.once("SIGINT", onSignal);
	process.once("SIGTERM", onSignal);
	try {
		await watchLoop(
			async () => {
				const once = await fleetOnce(args, fleetEnv).catch((e: Error) => ({
					code: 1,
					text: `pass failed: ${e.message}`,
				}));
				out(`${once.text}\n\n`);
			},
			every,
			stop.signal,
		);
	} finally {
		lock.release();
		process.off("SIGINT", onSignal);
		process.off("SIGTERM", onSignal);
	}
	return 0;
}

async function registry(agentDir: string): Promise<Registry | undefined> {
	const h = await host();
	if (!h.ModelRuntime || !h.ModelRegistry) return undefined;
	const runtime = await h.ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: join(agentDir, "models.json"),
		refreshOnCreate: false,
	});
	await runtime.refresh({ allowNetwork: false });
	return new h.ModelRegistry(runtime) as Registry;
}
