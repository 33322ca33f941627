// The settings as this session sees them: the files (user, project when trusted) plus the
// session's own overrides, resolved on demand and memoised until a file or override changes.
import { join } from "node:path";
import type { FileState } from "../host/index.ts";
import { userRoot } from "../util/index.ts";
import { type FileRead, readSettingsFile, SettingsFileCache } from "./files.ts";
import { findProjectSettings, type ProjectSettingsFile } from "./project-file.ts";
import { type LayerInput, type ResolvedSettings, resolveSettings, setPath } from "./resolve.ts";
import type { SettingsLayer } from "./schema.ts";
import { updateWatchdogSettings, type WatchdogMutation } from "./write.ts";

export type WriteScope = "user" | "project";

export interface SettingsLocation {
	/** Pi's agent folder (`getAgentDir()`), read each time so tests and forks can move it. */
	agentDir: () => string;
	/** Pi's project config folder name (`CONFIG_DIR_NAME`, `.pi` in Pi). */
	configDirName: string;
}

export interface ProjectContext {
	cwd: string;
	/** Whether the user decided to trust the project (see src/host/trust.ts). */
	trusted: boolean;
	/** The decision's snapshot: a file changed or added since is held back. Absent: trusted means any content. */
	trust?: ProjectFileTrust;
}

/** What the store asks of the trust snapshot (src/host/trust.ts `ProjectTrust`). */
export interface ProjectFileTrust {
	mayOpen(path: string): boolean;
	allows(path: string, now: FileState): boolean;
	heldWhy(path: string): string | undefined;
	record(path: string, now: FileState): void;
}

export const TRUST_COMMAND = "/subagents-watchdog trust";

export class SettingsStore {
	private readonly files: SettingsFileCache;
	private session: SettingsLayer = {};
	private sessionVersion = 0;
	private memo?: { key: string; value: ResolvedSettings };
	private readonly location: SettingsLocation;
	private projectFiles = new Map<string, ProjectSettingsFile>();

	/** `files`: the cache files are read through (the session's passes a watching one, see file-watch.ts). */
	constructor(location: SettingsLocation, files: SettingsFileCache = new SettingsFileCache()) {
		this.location = location;
		this.files = files;
	}

	/** Pi's agent folder, as the host names it now. */
	agentDir(): string {
		return this.location.agentDir();
	}

	configDirName(): string {
		return this.location.configDirName;
	}

	userPath(): string {
		return join(this.location.agentDir(), "settings.json");
	}

	projectPath(cwd: string): string {
		return this.projectFile(cwd).path;
	}

	/**
	 * The project's settings file for a working folder (its own, or the nearest up to the repository's top);
	 * found once.
	 */
	projectFile(cwd: string): ProjectSettingsFile {
		let found = this.projectFiles.get(cwd);
		if (!found) {
			found = findProjectSettings(cwd, this.location.configDirName);
			if (this.projectFiles.size > 100) this.projectFiles.clear();
			this.projectFiles.set(cwd, found);
		}
		return found;
	}

	/** `withSession: false` leaves this session's overrides out (what a file change is judged against). */
	resolve(project: ProjectContext, options: { withSession?: boolean } = {}): ResolvedSettings {
		const withSession = options.withSession ?? true;
		const userPath = this.userPath();
		const file = this.projectFile(project.cwd);
		const projectPath = file.path;
		const user = this.files.read(userPath, userRoot(this.location.agentDir()));
		// An untrusted project's file is not opened: the agent could have made it a FIFO.
		const open = project.trusted && (project.trust?.mayOpen(projectPath) ?? true);
		const proj = open ? this.files.read(projectPath, file.root) : undefined;
		// Content that changed or appeared after the trust decision is held back, errors and all.
		const trust = project.trust;
		const state = proj && stateOf(proj.read);
		const changed = state && trust && !trust.allows(projectPath, state);
		const held = changed ? (trust.heldWhy(projectPath) ?? "changed") : undefined;
		const session = withSession ? this.sessionVersion : "no-session";
		const key = [userPath, user.token, projectPath, proj?.token ?? "untrusted", held ?? "", session].join("|");
		if (this.memo?.key === key) return this.memo.value;

		const layers: LayerInput[] = [fileLayer("user", userPath, user.read)];
		const heldText = `held back: ${held}; run ${TRUST_COMMAND} to apply it`;
		if (!proj)
			layers.push({
				source: "project",
				origin: projectPath,
				ignoredReason: "not read: this project is not trusted, so its settings are ignored",
			});
		else if (held) layers.push({ source: "project", origin: projectPath, ignoredReason: heldText });
		else if (proj.read.state !== "missing") {
			layers.push({
				...fileLayer("project", projectPath, proj.read),
				tightenOnly: true,
				...(file.above ? { note: file.above } : {}),
			});
		}
		if (withSession && Object.keys(this.session).length > 0) {
			layers.push({ source: "session", origin: "session overrides", document: this.session, isWatchdogObject: true });
		}
		const value = resolveSettings(layers);
		this.memo = { key, value };
		return value;
	}

	/** The session layer as set so far (for persisting it in the session). */
	getSessionOverrides(): SettingsLayer {
		return structuredClone(this.session);
	}

	replaceSessionOverrides(layer: SettingsLayer): void {
		this.session = structuredClone(layer);
		this.sessionVersion++;
	}

	/** Sets (or with `undefined`, clears) one dotted key of the session layer. */
	setSessionValue(path: string, value: unknown): void {
		setPath(this.session as Record<string, unknown>, path, value);
		this.sessionVersion++;
	}

	async write(scope: WriteScope, project: ProjectContext, mutate: WatchdogMutation): Promise<string> {
		if (scope === "project" && !project.trusted) {
			throw new Error(
				"not saved: this project is not trusted, so its settings are neither read nor " +
					"written; use scope user or session",
			);
		}
		const root = scope === "user" ? userRoot(this.location.agentDir()) : this.projectFile(project.cwd).root;
		const path = scope === "user" ? this.userPath() : this.projectPath(project.cwd);
		await updateWatchdogSettings(path, root, mutate);
		// Your own write through a command: the content now there is yours, not something to hold back.
		if (scope === "project") project.trust?.record(path, stateOf(readSettingsFile(path, root)) ?? { kind: "absent" });
		return path;
	}
}

function fileLayer(
	source: "user" | "project",
	origin: string,
	read: ReturnType<SettingsFileCache["read"]>["read"],
): LayerInput {
	if (read.state === "error") return { source, origin, readError: read.message };
	return { source, origin, document: read.state === "ok" ? read.document : undefined };
}

/** What the trust snapshot judges; undefined for nothing to judge (no file, or the user's own accepted write). */
function stateOf(read: FileRead): FileState | undefined {
	if (read.state === "missing") return undefined;
	if (read.sha256) return { kind: "file", hash: read.sha256 };
	return read.state === "error" ? { kind: "unreadable", reason: read.message } : undefined;
}
