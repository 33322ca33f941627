// The host's own name ("pi", or a fork's), as Pi derives it: `piConfig.name` in the host
// package's package.json. Pi 1.6 does not export APP_NAME from its root, so we read the same
// field; it names environment variables such as `<APP>_SUBAGENT_PARENT_SESSION`.
import { join } from "node:path";
import { getPackageDir } from "@earendil-works/pi-coding-agent";
import { isPlainObject, readFileInRoot } from "../util/index.ts";

let cached: string | undefined;

export function appName(): string {
	if (cached) return cached;
	let name = "pi";
	try {
		const dir = getPackageDir();
		const read = readFileInRoot(join(dir, "package.json"), { root: dir, maxBytes: 1024 * 1024, overLimit: "refuse" });
		if (read.state === "ok") {
			const pkg = JSON.parse(read.text) as unknown;
			const config = isPlainObject(pkg) && isPlainObject(pkg.piConfig) ? pkg.piConfig : undefined;
			if (typeof config?.name === "string" && /^[A-Za-z][A-Za-z0-9_-]*$/.test(config.name)) name = config.name;
		}
	} catch {
		// a host without a readable package.json is Pi itself
	}
	cached = name;
	return name;
}

/** `PI_CODING_AGENT_DIR` for Pi, `<FORK>_CODING_AGENT_DIR` for a fork. */
export const envName = (suffix: string): string => `${appName().toUpperCase().replace(/-/g, "_")}_${suffix}`;

/**
 * `env`'s `<APP>_<suffix>` (PI_SUBAGENT_LINEAGE for Pi). Pi's package.json is read for the name only when some
 * variable ends in `_<suffix>`: a start asks this of every session, and almost never has one.
 */
export function hostEnv(suffix: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
	const tail = `_${suffix}`;
	for (const key in env) if (key.endsWith(tail)) return env[envName(suffix)];
	return undefined;
}
