// Project trust, as Pi decides it and as the watchdog needs it. Pi trusts a project's settings
// when the user decided so, and also calls a project trusted when it holds nothing Pi itself
// would need trust for. The second is no decision about the repository's own code (its
// language server, its TypeScript) or its instructions to our reviewer, so those need the first.
// The decision is bound to the content there at the time (trust-snapshot.ts).
import { hasTrustRequiringProjectResources, ProjectTrustStore } from "@earendil-works/pi-coding-agent";
import { join, relative, resolve, sep } from "node:path";
import { present, takeSnapshot, type TrustedRead } from "./trust-files.ts";
import { type FileState, HeldBack, judgeFile, mappedSnapshot, type TrustSnapshot } from "./trust-snapshot.ts";
import { isInside } from "../util/index.ts";

type TrustCtx = { cwd: string; isProjectTrusted(): boolean };

/** Pi's own answer; false when it cannot give one. */
export function piTrusts(ctx: Pick<TrustCtx, "isProjectTrusted">): boolean {
	try {
		return ctx.isProjectTrusted();
	} catch {
		return false;
	}
}

export interface RepositoryTrust {
	trusted: boolean;
	/** Why, in words for status. */
	why: string;
}

/**
 * Trust in the repository's own code and instructions: Pi trusts the project and that rests
 * on a decision (Pi resolved trust for its project files, a decision saved with /trust, or
 * `--approve` on the command line).
 */
export function repositoryTrust(ctx: TrustCtx, agentDir: string): RepositoryTrust {
	if (!piTrusts(ctx)) return { trusted: false, why: "the project is not trusted" };
	if (safely(() => hasTrustRequiringProjectResources(ctx.cwd))) return { trusted: true, why: "the project is trusted" };
	if (safely(() => new ProjectTrustStore(agentDir).get(ctx.cwd) === true))
		return { trusted: true, why: "the project is trusted (saved with /trust)" };
	if (process.argv.some((arg) => arg === "--approve" || arg === "-a"))
		return { trusted: true, why: "the project is trusted (--approve)" };
	return {
		trusted: false,
		why: "no trust decision was made for this project (run /trust or start pi with --approve to allow its own code)",
	};
}

function safely(check: () => boolean): boolean {
	try {
		return check();
	} catch {
		return false;
	}
}

/**
 * One session's trust in its project: the snapshot taken at its start (or given by the parent
 * for a child) and what was held back since. Consumers ask before they open a project file
 * (`mayOpen`) and about what they read (`allows`).
 */
export class ProjectTrust {
	readonly held = new HeldBack();
	snapshot: TrustSnapshot;

	constructor(snapshot: TrustSnapshot) {
		this.snapshot = snapshot;
	}

	get decided(): boolean {
		return this.snapshot.decided;
	}

	/** Whether the file may be opened at all; without a decision nothing is, and one that appeared since is noted. */
	mayOpen(path: string): boolean {
		if (this.snapshot.decided) return true;
		this.judge(path, present(path) ? { kind: "file", hash: "(not read)" } : { kind: "absent" });
		return false;
	}

	/** Whether content just read (or the file's state now) may be used. */
	allows(path: string, now: FileState): boolean {
		if (this.snapshot.decided) return this.judge(path, now);
		this.mayOpen(path);
		return false;
	}

	heldWhy(path: string): string | undefined {
		return this.held.list().find((h) => h.path === path)?.why;
	}

	/** The user's own write (a command): that content is theirs. */
	record(path: string, now: FileState): void {
		if (this.snapshot.decided) this.snapshot.files[path] = now;
	}

	private judge(path: string, now: FileState): boolean {
		const judged = judgeFile(this.snapshot, path, now);
		if (!judged.use && judged.held) this.held.add(path, judged.why);
		return judged.use;
	}
}

/**
 * Trust for a child working in `childCwd`. The parent's own folder (or one inside it) is judged
 * by the parent's snapshot; a worktree the launch made (a folder right under `worktrees.dir`,
 * holding the repository whose top is `worktrees.top`) by the parent's snapshot moved there, so
 * only content identical to what was trusted, at the same place, is used; any other folder on
 * its own: only a decision saved for it with /trust counts, bound to what is there now.
 */
export function childSnapshot(
	parent: TrustSnapshot,
	childCwd: string,
	worktrees: { dir: string; top: string } | undefined,
	agentDir: string,
	reads: (cwd: string) => TrustedRead[],
): TrustSnapshot {
	const child = resolve(childCwd);
	if (isInside(resolve(parent.root), child)) return parent;
	const under = worktrees ? relative(resolve(worktrees.dir), child) : "..";
	if (worktrees && under && isInside(resolve(worktrees.dir), child)) {
		const tree = join(resolve(worktrees.dir), under.split(sep)[0]);
		return { ...mappedSnapshot(parent, tree, resolve(worktrees.top), relative, join), root: child };
	}
	const saved = safely(() => new ProjectTrustStore(agentDir).get(child) === true);
	const why = saved
		? "a child's folder you trusted with /trust"
		: `a child's folder outside the project (${child}) that you have not trusted with /trust`;
	return takeSnapshot(child, { decided: saved, why }, reads(child));
}
