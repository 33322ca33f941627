// Project trust, as Pi decides it and as the watchdog needs it. Pi trusts a project's settings
// when the user decided so, and also calls a project trusted when it holds nothing Pi itself
// would need trust for. The second is no decision about the repository's own code (its
// language server, its TypeScript) or its instructions to our reviewer, so those need the first.
import { hasTrustRequiringProjectResources, ProjectTrustStore } from "@earendil-works/pi-coding-agent";

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
	if (safely(() => new ProjectTrustStore(agentDir).get(ctx.cwd) === true)) return { trusted: true, why: "the project is trusted (saved with /trust)" };
	if (process.argv.some((arg) => arg === "--approve" || arg === "-a")) return { trusted: true, why: "the project is trusted (--approve)" };
	return { trusted: false, why: "no trust decision was made for this project (run /trust or start pi with --approve to allow its own code)" };
}

function safely(check: () => boolean): boolean {
	try {
		return check();
	} catch {
		return false;
	}
}
