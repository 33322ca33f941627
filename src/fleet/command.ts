// `fleet` as both the CLI (`pi-watchdog fleet`) and Pi (`/subagents-watchdog fleet`) run it:
// the arguments, the settings they override, the decider model, one pass, and its text or JSON.
// The watch loop and the lock live in watch.ts; the CLI's own plumbing in cli.ts.
import type { Registry, ReviewerChoice } from "../models/index.ts";
import { chooseReviewer } from "../models/index.ts";
import type { WatchdogSettings } from "../settings/index.ts";
import { type Decider, modelDecider } from "./decide.ts";
import { entryOf, readLedger, writeLedger } from "./ledger.ts";
import { fleetRun, readPlaybook } from "./run.ts";
import { passText } from "./view.ts";

export const FLEET_USAGE = `usage: pi-watchdog fleet [--verbose] [--json] [--stall 3m] [--dormant 24h] [--nudge]
                         [--no-claude]
       pi-watchdog fleet --watch [--every 3m] [--nudge]      passes until stopped (one watcher per machine)
       pi-watchdog fleet --systemd-unit                      print a systemd user unit that keeps the watcher running
       pi-watchdog fleet policy <session id> off|keep|handsoff

Every agent session on this machine (Pi's session files, live Pi sessions, child runs, Claude
Code's project logs), each working, waiting, idle, done, dormant or unknown; the ones that need
you first. --nudge sends each idle session a nudge (its mailbox when it runs pi-watchdog, else
its tmux pane; else it is flagged unreachable).`;

export interface FleetArgs {
	verbose: boolean;
	json: boolean;
	nudge: boolean;
	claude: boolean;
	stallMs?: number;
	dormantMs?: number;
	watch: boolean;
	everyMs?: number;
	systemdUnit: boolean;
	policy?: { id: string; policy: "off" | "keep" | "handsoff" };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "3m", "24h", "2d" or plain milliseconds. */
export function parseDuration(text: string | undefined): number | undefined {
	const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text ?? "");
	if (!m) return undefined;
	const ms = Number(m[1]) * (UNITS[m[2] ?? "ms"] as number);
	return ms >= 0 && ms <= 365 * 86_400_000 ? Math.round(ms) : undefined;
}

export function parseFleetArgs(argv: string[]): FleetArgs | string {
	const args: FleetArgs = { verbose: false, json: false, nudge: false, claude: true, watch: false, systemdUnit: false };
	if (argv[0] === "policy") {
		const [, id, policy] = argv;
		if (argv.length !== 3 || !id || (policy !== "off" && policy !== "keep" && policy !== "handsoff"))
			return "fleet policy takes a session id and off, keep or handsoff";
		return { ...args, policy: { id, policy } };
	}
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] as string;
		const [flag, inline] = arg.includes("=")
			? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
			: [arg];
		const value = () => inline ?? argv[++i];
		if (flag === "--verbose" || flag === "-v") args.verbose = true;
		else if (flag === "--json") args.json = true;
		else if (flag === "--nudge") args.nudge = true;
		else if (flag === "--no-claude") args.claude = false;
		else if (flag === "--watch") args.watch = true;
		else if (flag === "--systemd-unit") args.systemdUnit = true;
		else if (flag === "--stall" || flag === "--dormant" || flag === "--every") {
			const raw = value();
			const ms = parseDuration(raw);
			if (ms === undefined) return `${flag} needs a duration like 90s, 3m, 24h or 2d (got "${raw ?? ""}")`;
			if (flag === "--stall") args.stallMs = ms;
			else if (flag === "--dormant") args.dormantMs = ms;
			else args.everyMs = ms;
		} else return `unknown option ${arg}`;
	}
	if (args.everyMs !== undefined && !args.watch) return "--every goes with --watch";
	return args;
}

export interface FleetEnv {
	agentDir: string;
	settings: WatchdogSettings;
	env: NodeJS.ProcessEnv;
	/** Pi's model registry, made on demand (the CLI builds one from models.json). */
	registry?: () => Promise<Registry | undefined>;
	/** The model of the session the command runs in (Pi), for an inherited watchdog model. */
	sessionModel?: { provider: string; id: string };
	ackTimeoutMs?: number;
	/** The Pi session the command runs in: listed, never nudged. */
	self?: { id?: string; file?: string };
}

/** The model that decides a pass: fleet.model, else the watchdog's (main.model); none: the template. */
export function deciderChoice(
	settings: WatchdogSettings,
	sessionModel?: FleetEnv["sessionModel"],
): ReviewerChoice | undefined {
	const model = settings.fleet.model !== "inherit" ? settings.fleet.model : settings.main.model;
	if (model === "inherit" && !sessionModel) return undefined;
	const choice = chooseReviewer({ model, thinking: settings.main.thinking }, { model: sessionModel, thinking: "off" });
	return choice.provider && choice.id ? choice : undefined;
}

function decider(env: FleetEnv): Decider | undefined {
	const choice = deciderChoice(env.settings, env.sessionModel);
	if (!choice || !env.registry) return undefined;
	const make = env.registry;
	return async (candidates) => {
		const registry = await make().catch(() => undefined);
		if (!registry) return { error: "no model registry (models.json and auth.json could not be read)" };
		const timeout = env.settings.agentEndTimeoutMs;
		return modelDecider(registry, choice, timeout, readPlaybook(env.agentDir))(candidates);
	};
}

/** One pass (or the policy subcommand) as text; `code` 0 unless the command could not run. */
export async function fleetOnce(args: FleetArgs, env: FleetEnv): Promise<{ code: number; text: string }> {
	if (args.policy) {
		const ledger = readLedger(env.agentDir);
		const entry = entryOf(ledger, args.policy.id);
		entry.policy = args.policy.policy;
		writeLedger(env.agentDir, ledger);
		return { code: 0, text: `Fleet policy of ${args.policy.id}: ${args.policy.policy}` };
	}
	const f = env.settings.fleet;
	const run = await fleetRun({
		agentDir: env.agentDir,
		env: env.env,
		...(args.claude ? {} : { claudeDir: false }),
		times: { stallMs: args.stallMs ?? f.stallMs, dormantMs: args.dormantMs ?? f.dormantMs },
		nudge: args.nudge,
		limits: { cooldownMs: f.cooldownMs, maxNudges: f.maxNudges },
		...(args.nudge ? { decider: decider(env) } : {}),
		...(env.ackTimeoutMs ? { ackTimeoutMs: env.ackTimeoutMs } : {}),
		notify: f.notify,
		historyMaxBytes: env.settings.history.maxBytes,
		...(env.self ? { self: env.self } : {}),
	});
	if (args.json) return { code: 0, text: JSON.stringify(run.pass) };
	const notes = run.notes.map((n) => `Note: ${n}`);
	return { code: 0, text: [passText(run.pass, { verbose: args.verbose }), ...notes].join("\n") };
}
