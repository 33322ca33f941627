// `pi-watchdog doctor`: runs the checks in order and exits 0 only when all hold. What needs Pi's
// own runtime (the reviewer model) is imported only on a Node that can run it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { historyDir } from "../findings/index.ts";
import { bundled } from "../lsp/index.ts";
import { chooseReviewer, type SessionModelInfo, type ThinkingSetting } from "../models/index.ts";
import { parseJson, SettingsStore } from "../settings/index.ts";
import { PACKAGE_DIR } from "../util/index.ts";
import {
	agentDirOf,
	type Check,
	type DoctorEnv,
	formatChecks,
	gitCheck,
	historyCheck,
	listsPackage,
	nodeCheck,
	piCheck,
	readSettings,
	serverCheck,
} from "./checks.ts";

export const DOCTOR_USAGE = `usage: pi-watchdog doctor

Checks this installation: Node and Pi versions, that Pi would load this package, that the
settings files parse and validate, that the reviewer model resolves and has credentials, that
git and the language server run, and that the history log is writable. Exit 0 only when all hold.`;

export async function doctor(out: (s: string) => void, env: DoctorEnv): Promise<number> {
	const agentDir = agentDirOf(env.env);
	const checks: Check[] = [nodeCheck(env.nodeVersion), piCheck(env.env)];
	const userPath = join(agentDir, "settings.json");
	const user = readSettings(userPath, parseJson);
	checks.push(loadsCheck(user, userPath, agentDir, env.cwd));
	const store = new SettingsStore({ agentDir: () => agentDir, configDirName: ".pi" });
	const resolved = store.resolve({ cwd: env.cwd, trusted: true });
	const files = [userPath, store.projectPath(env.cwd)].filter((f) => existsSync(f));
	const errors = resolved.errors.map((e) => (e.message.startsWith(e.origin) ? e.message : `${e.origin}: ${e.message}`));
	checks.push({
		name: "Settings",
		ok: errors.length === 0,
		detail: errors.length
			? errors.join("\n      ")
			: `${files.join(" and ") || "no settings files (defaults)"} parse and validate`,
	});
	if (checks[0]?.ok) {
		const defaults = user.exists && "value" in user ? (user.value as Record<string, unknown>) : {};
		checks.push(await modelCheck(agentDir, resolved.settings.main, sessionModelOf(defaults)));
	} else checks.push({ name: "Reviewer model", ok: false, detail: "not checked: Pi's runtime needs the Node above" });
	checks.push(gitCheck(env.env));
	const ours = bundled();
	checks.push(serverCheck(ours.server?.cli, ours.typescript?.tsserver, env.env));
	checks.push(historyCheck(historyDir(agentDir)));
	out(`${formatChecks(checks)}\n`);
	return checks.every((c) => c.ok) ? 0 : 1;
}

function loadsCheck(user: ReturnType<typeof readSettings>, path: string, agentDir: string, cwd: string): Check {
	const name = "Pi loads the package";
	if (user.exists && "error" in user)
		return {
			name,
			ok: false,
			detail: `${path}: ${user.error}. Pi drops every package listed in a file it cannot parse`,
		};
	const project = join(cwd, ".pi", "settings.json");
	const inProject = existsSync(project) ? readSettings(project, parseJson) : { exists: false as const };
	const userLists = user.exists && "value" in user && listsPackage(pkgs(user.value), agentDir);
	const projectLists =
		inProject.exists && "value" in inProject && listsPackage(pkgs(inProject.value), join(cwd, ".pi"));
	if (userLists || projectLists) return { name, ok: true, detail: `listed in ${userLists ? path : project}` };
	return { name, ok: false, detail: `no entry in ${path} "packages" is this package: run pi install "${PACKAGE_DIR}"` };
}

const pkgs = (settings: unknown) => (settings as { packages?: unknown } | null)?.packages;

function sessionModelOf(settings: Record<string, unknown>): SessionModelInfo {
	const provider = settings.defaultProvider;
	const id = settings.defaultModel;
	return typeof provider === "string" && typeof id === "string" ? { model: { provider, id } } : {};
}

async function modelCheck(
	agentDir: string,
	main: { model: string; thinking: ThinkingSetting },
	session: SessionModelInfo,
): Promise<Check> {
	const name = "Reviewer model";
	const choice = chooseReviewer(main, session);
	if (!choice.provider || !choice.id)
		return {
			name,
			ok: false,
			detail:
				`${choice.problem ?? "none"}: set one with /subagents-watchdog model recommended, ` +
				"or defaultModel in Pi's settings",
		};
	const { reviewerCheck } = await import("./model-check.ts");
	const result = await reviewerCheck(agentDir, choice);
	const inherit = main.model === "inherit" ? " (inherit: Pi's default model)" : "";
	return { name, ok: result.ok, detail: `${result.lines.join(" ")}${inherit}` };
}
