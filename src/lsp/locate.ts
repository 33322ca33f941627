// Finding typescript-language-server: the repository's own (node_modules/.bin) first, then
// PATH. It is never installed by us.
import { accessSync, constants, existsSync, readFileSync, realpathSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";

export const SERVER_BIN = "typescript-language-server";

export interface LocatedServer {
	path: string;
	version: string;
	from: "repository" | "PATH";
}

export function locateServer(root: string, pathEnv = process.env.PATH ?? ""): LocatedServer | undefined {
	const local = join(root, "node_modules", ".bin", SERVER_BIN);
	if (isExecutable(local)) return { path: local, version: versionOf(local), from: "repository" };
	for (const dir of pathEnv.split(delimiter)) {
		if (!dir) continue;
		const candidate = join(dir, SERVER_BIN);
		if (isExecutable(candidate)) return { path: candidate, version: versionOf(candidate), from: "PATH" };
	}
	return undefined;
}

function isExecutable(path: string): boolean {
	try {
		accessSync(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/** The version from the package the binary belongs to, read without starting it. */
function versionOf(bin: string): string {
	try {
		let dir = dirname(realpathSync(bin));
		for (let i = 0; i < 4; i++) {
			const pkg = join(dir, "package.json");
			if (existsSync(pkg)) {
				const json = JSON.parse(readFileSync(pkg, "utf8")) as { name?: string; version?: string };
				if (json.name === SERVER_BIN && json.version) return json.version;
			}
			dir = dirname(dir);
		}
	} catch {
		// fall through
	}
	return "unknown";
}
