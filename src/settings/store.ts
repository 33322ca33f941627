// The settings as this session sees them: the files (user, project when trusted) plus the
// session's own overrides, resolved on demand and memoised until a file or override changes.
import { join } from "node:path";
import { userRoot } from "../util/index.ts";
import { SettingsFileCache } from "./files.ts";
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
	trusted: boolean;
}

export class SettingsStore {
	private readonly files: SettingsFileCache;
	private session: SettingsLayer = {};
	private sessionVersion = 0;
	private memo?: { key: string; value: ResolvedSettings };
	private readonly location: SettingsLocation;

	/** `files`: the cache files are read through (the session's passes a watching one, see file-watch.ts). */
	constructor(location: SettingsLocation, files: SettingsFileCache = new SettingsFileCache()) {
		this.location = location;
		this.files = files;
	}

	/** Pi's agent folder, as the host names it now. */
	agentDir(): string {
		return this.location.agentDir();
	}

	userPath(): string {
		return join(this.location.agentDir(), "settings.json");
	}

	projectPath(cwd: string): string {
		return join(cwd, this.location.configDirName, "settings.json");
	}

	/** `withSession: false` leaves this session's overrides out (what a file change is judged against). */
	resolve(project: ProjectContext, options: { withSession?: boolean } = {}): ResolvedSettings {
		const withSession = options.withSession ?? true;
		const userPath = this.userPath();
		const projectPath = this.projectPath(project.cwd);
		const user = this.files.read(userPath, userRoot(this.location.agentDir()));
		// An untrusted project's file is not opened, not even looked at: the agent could have made it a FIFO.
		const proj = project.trusted ? this.files.read(projectPath, project.cwd) : undefined;
		const key = [userPath, user.token, projectPath, proj?.token ?? "untrusted", withSession ? this.sessionVersion : "no-session"].join("|");
		if (this.memo?.key === key) return this.memo.value;

		const layers: LayerInput[] = [fileLayer("user", userPath, user.read)];
		if (!proj) layers.push({ source: "project", origin: projectPath, ignoredReason: "not read: this project is not trusted, so its settings are ignored" });
		else if (proj.read.state !== "missing") layers.push(fileLayer("project", projectPath, proj.read));
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
			throw new Error("not saved: this project is not trusted, so its settings are neither read nor written; use scope user or session");
		}
		const path = scope === "user" ? this.userPath() : this.projectPath(project.cwd);
		await updateWatchdogSettings(path, scope === "user" ? userRoot(this.location.agentDir()) : project.cwd, mutate);
		return path;
	}
}

function fileLayer(source: "user" | "project", origin: string, read: ReturnType<SettingsFileCache["read"]>["read"]): LayerInput {
	if (read.state === "error") return { source, origin, readError: read.message };
	return { source, origin, document: read.state === "ok" ? read.document : undefined };
}
