// Finding the git repository around a folder and reading its HEAD from the files git keeps,
// without starting a git process (the gate may not spend one on runs that only read). These
// files are the repository's (or the agent's, mid-session), so each is read through safe-file:
// a FIFO or `/dev/zero` there, or a ref naming a path out of the git folder, gives "cannot
// tell", and the caller asks git instead.
import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { readFileInRoot } from "../util/index.ts";

/** Far above a real HEAD, ref or `.git` file. */
const SMALL_FILE_BYTES = 4096;
/** packed-refs of a very large repository; a larger one is left to git. */
const PACKED_REFS_BYTES = 64 * 1024 * 1024;

/** The text of a git file inside `root`, or undefined when it is missing or unsafe to read. */
function gitFile(path: string, root: string, maxBytes = SMALL_FILE_BYTES): string | undefined {
	const read = readFileInRoot(path, { root, maxBytes, overLimit: "refuse" });
	return read.state === "ok" ? read.text : undefined;
}

export interface RepoLocation {
	/** The work tree's top folder. */
	root: string;
	/** The repository's private folder (`.git`, or a worktree's gitdir). */
	gitDir: string;
	/** Where shared refs live (differs from gitDir in linked worktrees). */
	commonDir: string;
}

export function findRepo(cwd: string): RepoLocation | undefined {
	let dir = resolve(cwd);
	for (;;) {
		const dotGit = join(dir, ".git");
		const location = readDotGit(dir, dotGit);
		if (location) return location;
		const parent = dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
}

function readDotGit(root: string, dotGit: string): RepoLocation | undefined {
	try {
		const s = statSync(dotGit);
		let gitDir: string;
		if (s.isDirectory()) gitDir = dotGit;
		else {
			const m = /^gitdir:\s*(.+)\s*$/m.exec(gitFile(dotGit, root) ?? "");
			if (!m) return undefined;
			gitDir = isAbsolute(m[1]) ? m[1] : resolve(root, m[1]);
		}
		if (!existsSync(join(gitDir, "HEAD"))) return undefined;
		let commonDir = gitDir;
		const common = join(gitDir, "commondir");
		if (existsSync(common)) {
			const rel = gitFile(common, gitDir)?.trim();
			if (!rel) return undefined;
			commonDir = isAbsolute(rel) ? rel : resolve(gitDir, rel);
		}
		return { root, gitDir, commonDir };
	} catch {
		return undefined;
	}
}

/**
 * The commit HEAD points at, or null for an unborn branch; undefined when it cannot be read
 * from the files (the caller then asks git).
 */
export function readHead(repo: RepoLocation): string | null | undefined {
	try {
		const head = gitFile(join(repo.gitDir, "HEAD"), repo.gitDir)?.trim();
		if (head === undefined) return undefined;
		if (/^[0-9a-f]{40,64}$/.test(head)) return head;
		const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
		if (!ref?.startsWith("refs/") || ref.split("/").includes("..")) return undefined;
		for (const dir of [repo.gitDir, repo.commonDir]) {
			const file = join(dir, ref);
			if (existsSync(file)) {
				const oid = gitFile(file, dir)?.trim();
				return oid && /^[0-9a-f]{40,64}$/.test(oid) ? oid : undefined;
			}
		}
		const packed = join(repo.commonDir, "packed-refs");
		if (existsSync(packed)) {
			const text = gitFile(packed, repo.commonDir, PACKED_REFS_BYTES);
			if (text === undefined) return undefined;
			for (const line of text.split("\n")) {
				const [oid, name] = line.split(" ");
				if (name === ref && /^[0-9a-f]{40,64}$/.test(oid)) return oid;
			}
		}
		return null;
	} catch {
		return undefined;
	}
}
