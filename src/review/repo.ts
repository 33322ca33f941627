// Finding the git repository around a folder and reading its HEAD from the files git keeps,
// without starting a git process (the gate may not spend one on runs that only read).
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

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
			const m = /^gitdir:\s*(.+)\s*$/m.exec(readFileSync(dotGit, "utf8"));
			if (!m) return undefined;
			gitDir = isAbsolute(m[1]) ? m[1] : resolve(root, m[1]);
		}
		if (!existsSync(join(gitDir, "HEAD"))) return undefined;
		let commonDir = gitDir;
		const common = join(gitDir, "commondir");
		if (existsSync(common)) {
			const rel = readFileSync(common, "utf8").trim();
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
		const head = readFileSync(join(repo.gitDir, "HEAD"), "utf8").trim();
		if (/^[0-9a-f]{40,64}$/.test(head)) return head;
		const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
		if (!ref) return undefined;
		for (const dir of [repo.gitDir, repo.commonDir]) {
			const file = join(dir, ref);
			if (existsSync(file)) {
				const oid = readFileSync(file, "utf8").trim();
				return /^[0-9a-f]{40,64}$/.test(oid) ? oid : undefined;
			}
		}
		const packed = join(repo.commonDir, "packed-refs");
		if (existsSync(packed)) {
			for (const line of readFileSync(packed, "utf8").split("\n")) {
				const [oid, name] = line.split(" ");
				if (name === ref && /^[0-9a-f]{40,64}$/.test(oid)) return oid;
			}
		}
		return null;
	} catch {
		return undefined;
	}
}
