// Which typescript-language-server and which TypeScript the pre-pass runs, and why. A
// repository's own server (node_modules/.bin) and TypeScript are repository code: they run only
// in a trusted project. Otherwise the server and TypeScript this package depends on (bundled),
// and only when those are missing a server on PATH. Nothing here is ever installed by us.
import { accessSync, constants, existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, isAbsolute, join, relative } from "node:path";
import { readFileInRoot } from "../util/index.ts";

export const SERVER_BIN = "typescript-language-server";

export type ServerSource = "repository" | "bundled" | "PATH";

export interface LocatedServer {
	/** The file shown in status: the repository's or PATH's binary, or the bundled cli.mjs. */
	path: string;
	/** What is spawned: the bundled server runs on this Node, not through a shebang and a PATH lookup of `node`. */
	command: string;
	/** Arguments before `--stdio`. */
	args: string[];
	version: string;
	from: ServerSource;
	/** Why this one, for status. */
	why: string;
	/** How the server is told which TypeScript to use; absent only when ours is missing in a trusted project. */
	typescript?: TypeScriptChoice;
}

/**
 * `path`: tsserver.path, so the workspace's TypeScript is never loaded (untrusted, or a trusted one without its own).
 * `fallbackPath`: the workspace's TypeScript is preferred (trusted, and it has one now).
 */
export interface TypeScriptChoice {
	option: "path" | "fallbackPath";
	/** Whether the project was trusted when this was chosen (status says why ours is pinned). */
	trusted: boolean;
	/** The bundled lib/tsserver.js. */
	tsserver: string;
	version: string;
}

export interface Bundled {
	server?: { cli: string; version: string };
	typescript?: { tsserver: string; version: string };
}

const cache = new Map<string, Bundled>();

/** The server and TypeScript this package depends on, resolved from `from` (a file URL or path). */
export function bundled(from: string = import.meta.url): Bundled {
	const known = cache.get(from);
	if (known) return known;
	const require = createRequire(from);
	const found: Bundled = {};
	const server = readPackage(require, `${SERVER_BIN}/package.json`);
	const bin =
		typeof server?.json.bin === "string"
			? server.json.bin
			: (server?.json.bin as Record<string, string> | undefined)?.[SERVER_BIN];
	if (server && bin && existsSync(join(server.dir, bin)))
		found.server = { cli: join(server.dir, bin), version: server.json.version ?? "unknown" };
	const ts = readPackage(require, "typescript/package.json");
	if (ts && existsSync(join(ts.dir, "lib", "tsserver.js")))
		found.typescript = { tsserver: join(ts.dir, "lib", "tsserver.js"), version: ts.json.version ?? "unknown" };
	cache.set(from, found);
	return found;
}

export interface LocateOptions {
	pathEnv?: string;
	/** Where the bundled packages are resolved from (tests point it elsewhere to take them away). */
	bundledFrom?: string;
}

/** The server to run, or the reason there is none. */
export function locateServer(
	root: string,
	trusted: boolean,
	options: LocateOptions = {},
): LocatedServer | { reason: string } {
	const ours = bundled(options.bundledFrom);
	// Without our TypeScript the server would load the workspace's: in an untrusted project, refuse instead.
	if (!trusted && !ours.typescript)
		return {
			reason: "the bundled TypeScript could not be found, and the project is not trusted, so its own is not used",
		};
	// The server resolves `fallbackPath` when it starts, which may be after a checkout brought a TypeScript into the
	// workspace: so the workspace's is preferred only when it is there now (the caller's trust covers it as it is).
	const workspaceTs = trusted && existsSync(join(root, "node_modules", "typescript", "lib", "tsserver.js"));
	const typescript = ours.typescript && {
		option: workspaceTs ? ("fallbackPath" as const) : ("path" as const),
		trusted,
		...ours.typescript,
	};
	const withTs = (s: Omit<LocatedServer, "typescript">): LocatedServer => (typescript ? { ...s, typescript } : s);
	const untrusted = "the project is not trusted, so its own node_modules/.bin server is not used";

	if (trusted) {
		const local = join(root, "node_modules", ".bin", SERVER_BIN);
		if (isExecutable(local))
			return withTs({
				path: local,
				command: local,
				args: [],
				version: versionOf(local),
				from: "repository",
				why: "the project is trusted and has its own node_modules/.bin server",
			});
	}
	if (ours.server) {
		const why = trusted ? "the project is trusted but has no node_modules/.bin server of its own" : untrusted;
		return withTs({
			path: ours.server.cli,
			command: process.execPath,
			args: [ours.server.cli],
			version: ours.server.version,
			from: "bundled",
			why,
		});
	}
	const missing = "the bundled server could not be found";
	const onPath = searchPath(root, trusted, options.pathEnv ?? process.env.PATH ?? "");
	if (onPath)
		return withTs({
			path: onPath,
			command: onPath,
			args: [],
			version: versionOf(onPath),
			from: "PATH",
			why: trusted ? `${missing} and the project has no node_modules/.bin server` : `${missing}; ${untrusted}`,
		});
	return {
		reason:
			`${missing}, none is on PATH${trusted ? " or in node_modules/.bin" : `, and ${untrusted}`} ` +
			`(the watchdog never installs one)`,
	};
}

/** Absolute PATH entries only: a relative one (`.`) would resolve inside the repository. */
export function absolutePath(pathEnv: string): string {
	return pathEnv
		.split(delimiter)
		.filter((d) => d && isAbsolute(d))
		.join(delimiter);
}

function searchPath(root: string, trusted: boolean, pathEnv: string): string | undefined {
	const realRoot = realOr(root);
	for (const dir of absolutePath(pathEnv).split(delimiter)) {
		const candidate = join(dir, SERVER_BIN);
		if (!isExecutable(candidate)) continue;
		// In an untrusted project a PATH entry (or link) leading into it is the repository's server again.
		if (!trusted && (inside(root, dir) || inside(realRoot, realOr(candidate)))) continue;
		return candidate;
	}
	return undefined;
}

function inside(root: string, path: string): boolean {
	const r = relative(root, path);
	return !r.startsWith("..") && !isAbsolute(r);
}

function realOr(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

function readPackage(
	require: NodeJS.Require,
	spec: string,
): { dir: string; json: { version?: string; bin?: unknown } } | undefined {
	try {
		const file = require.resolve(spec);
		return { dir: dirname(file), json: JSON.parse(readFileSync(file, "utf8")) };
	} catch {
		return undefined;
	}
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
			// A trusted repository's own package.json: still never a FIFO or a huge read.
			const read = existsSync(pkg)
				? readFileInRoot(pkg, { root: dir, maxBytes: 1024 * 1024, overLimit: "refuse" })
				: undefined;
			if (read?.state === "ok") {
				const json = JSON.parse(read.text) as { name?: string; version?: string };
				if (json.name === SERVER_BIN && json.version) return json.version;
			}
			dir = dirname(dir);
		}
	} catch {
		// fall through
	}
	return "unknown";
}
