// Trust in the project's own files for one session: the snapshot taken at its start (kept in
// the session, so /reload in the same process keeps the decision it rests on), the files it
// covers as each consumer reads them, the language server's part, the one notice of what
// was held back, and the trust command that takes the decision again.
import { join } from "node:path";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { AGENT_FILE_MAX_BYTES, childSnapshot, fileState, judgeFile, listAgentFiles, present } from "../host/index.ts";
import { ProjectTrust, repositoryTrust, takeSnapshot } from "../host/index.ts";
import type { TrustedRead, TrustSnapshot } from "../host/index.ts";
import { GUIDANCE_FILE, GUIDANCE_READ_BYTES } from "../review/index.ts";
import { findProjectSettings, repositoryTop, SETTINGS_MAX_BYTES, TRUST_COMMAND } from "../settings/index.ts";
import type { Ctx } from "./monitor.ts";

/** What taking trust needs of the session: a child's given snapshot, the folders, the session entries. */
export interface TrustDeps {
	given?: TrustSnapshot;
	agentDir(): string;
	configDirName(): string;
	persist(type: string, data: unknown): void;
}

export const TRUST_ENTRY = "watchdog-trust";
const NONE_YET = " (none yet).";
/** Repository code is hashed, not run, to be compared: far above a language server's entry file. */
const CODE_MAX_BYTES = 8 * 1024 * 1024;

type Entry = { type: string; customType?: string; data?: unknown };

/** The files a trust decision covers, each read as its consumer reads it. */
export function trustReads(cwd: string, config: string, lspRoot: string): TrustedRead[] {
	const settings = findProjectSettings(cwd, config);
	const agentsDir = join(cwd, config, "agents");
	return [
		{ path: settings.path, root: settings.root, maxBytes: SETTINGS_MAX_BYTES, overLimit: "refuse" },
		{ path: join(cwd, config, GUIDANCE_FILE), root: cwd, maxBytes: GUIDANCE_READ_BYTES, overLimit: "truncate" },
		...listAgentFiles(agentsDir, cwd).files.map(
			(path): TrustedRead => ({ path, root: cwd, maxBytes: AGENT_FILE_MAX_BYTES, overLimit: "refuse" }),
		),
		...lspReads(lspRoot),
	];
}

/** The repository's own language server and TypeScript, by the files the server starts from. */
export function lspReads(root: string): TrustedRead[] {
	const paths = [
		"node_modules/.bin/typescript-language-server",
		"node_modules/typescript/package.json",
		"node_modules/typescript/lib/tsserver.js",
	];
	return paths.map((p) => ({ path: join(root, p), root, maxBytes: CODE_MAX_BYTES, overLimit: "refuse" }));
}

/** The session's trust: a child's from its parent, else the one this process took for this folder, else a new one. */
export function startTrust(deps: TrustDeps, ctx: Ctx, entries: readonly Entry[], lspRoot: string): ProjectTrust {
	const given = deps.given;
	if (given) return new ProjectTrust(given);
	const kept = [...entries]
		.reverse()
		.find((e) => e.type === "custom" && e.customType === TRUST_ENTRY && isOurs(e.data, ctx.cwd));
	if (kept) return new ProjectTrust((kept.data as { snapshot: TrustSnapshot }).snapshot);
	const decision = repositoryTrust(ctx, deps.agentDir());
	const reads = trustReads(ctx.cwd, deps.configDirName(), lspRoot);
	return record(deps, takeSnapshot(ctx.cwd, { decided: decision.trusted, why: decision.why }, reads));
}

/** The trust command: you decided to trust the project's files as they are now. */
export function trustNow(deps: TrustDeps, ctx: Ctx, lspRoot: string): { trust: ProjectTrust; text: string } {
	const at = new Date().toLocaleTimeString("en-GB", { hour12: false });
	const why = `you trusted its files as they were at ${at} (${TRUST_COMMAND})`;
	const reads = trustReads(ctx.cwd, deps.configDirName(), lspRoot);
	const trust = record(deps, takeSnapshot(ctx.cwd, { decided: true, why }, reads));
	const of = (kind: string) =>
		Object.entries(trust.snapshot.files)
			.filter(([, state]) => state.kind === kind)
			.map(([path]) => `- ${path}`);
	const files = of("file");
	const unreadable = of("unreadable");
	const text = [
		`Watchdog: the project's own files are trusted for this session as they are now${files.length ? ":" : NONE_YET}`,
		...files,
		...(unreadable.length ? ["Not trusted (they cannot be read safely):", ...unreadable] : []),
		"A file that appears or changes after this is held back again until you run this command again.",
	].join("\n");
	return { trust, text };
}

/** Whether the repository's own server and TypeScript may run: trusted, and what was there at the decision. */
// Without a decision nothing is noted: an `npm install` there is no news (status says the bundled server ran).
export function lspTrusted(trust: ProjectTrust, root: string): boolean {
	if (!trust.decided) return false;
	return lspReads(root)
		.map((read) => trust.allows(read.path, fileState(read)))
		.every(Boolean);
}

/**
 * A child's trust, for the folder it works in (see `childSnapshot`); `runDir` holds the
 * worktrees this launch makes.
 */
export function childTrust(
	parent: TrustSnapshot,
	childCwd: string,
	runDir: string,
	agentDir: string,
	config: string,
): TrustSnapshot {
	const worktrees = { dir: join(runDir, "worktrees"), top: repositoryTop(parent.root) ?? parent.root };
	return childSnapshot(parent, childCwd, worktrees, agentDir, (cwd) => trustReads(cwd, config, cwd));
}

/**
 * Whether a child's Pi may read the project's own Pi settings (`<cwd>/<config>/settings.json`,
 * which can name the shell its bash runs): only under the decision, and unchanged since.
 */
export function piSettingsTrusted(trust: TrustSnapshot, cwd: string, config: string): boolean {
	const path = join(cwd, config, "settings.json");
	if (!trust.decided) return false;
	return judgeFile(trust, path, fileState({ path, root: cwd, maxBytes: SETTINGS_MAX_BYTES, overLimit: "refuse" })).use;
}

/** Says once what was held back (when there is something to say); returns `value`. */
export function noticeHeld<T>(trust: ProjectTrust, ctx: Ctx, value: T): T {
	const held = trust.held.notice(TRUST_COMMAND);
	if (held) present(ctx as ExtensionContext, held, "warning");
	return value;
}

/** Before the session starts: nothing of the project's is trusted. */
export function unstartedTrust(): ProjectTrust {
	return new ProjectTrust({ root: "", decided: false, why: "the session has not started", files: {}, takenAt: 0 });
}

function record(deps: TrustDeps, snapshot: TrustSnapshot): ProjectTrust {
	try {
		deps.persist(TRUST_ENTRY, { pid: process.pid, snapshot });
	} catch {
		// a stale session: the decision holds for this session all the same
	}
	return new ProjectTrust(snapshot);
}

// Only a decision taken in this process: a session resumed later is a new start, decided again.
function isOurs(data: unknown, cwd: string): boolean {
	const d = data as { pid?: unknown; snapshot?: { root?: unknown; files?: unknown } } | undefined;
	return d?.pid === process.pid && d.snapshot?.root === cwd && typeof d.snapshot.files === "object";
}
