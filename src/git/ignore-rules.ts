// Whether git ignores a path, decided in-process so that a run of edits and writes costs no git
// process: the `.gitignore` files on the path's way down (deeper files first), the repository's
// `info/exclude`, then the global excludes file, with git's rule that nothing below an excluded
// folder can be re-included; and a tracked file is never ignored (read from the index). Each
// answer is true (ignored), false (not ignored) or undefined (cannot tell here: ask git).
import { lstatSync } from "node:fs";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { fileToken, readFileInRoot } from "../util/index.ts";
import { type GitSettings, readGitSettings } from "./git-config.ts";
import { trackedAmong } from "./git-index.ts";
import type { RepoLocation } from "./repo.ts";

const RULES_BYTES = 1024 * 1024;

/** One source of patterns: where its paths are relative to, and its matcher (null: no such file). */
interface RuleFile {
	base: string;
	rules: Ignore | null;
}

type Match = "ignored" | "unignored" | "none";

export class IgnoreRules {
	private readonly repo: RepoLocation;
	/** Parsed rule files by path, kept while the file's token is unchanged. */
	private files = new Map<string, { token: string; rules: Ignore | null | undefined }>();

	constructor(repo: RepoLocation) {
		this.repo = repo;
	}

	/** For each path (relative to the work tree root, with `/`): ignored, not ignored, or undefined. */
	decide(paths: readonly string[]): Map<string, boolean | undefined> {
		const out = new Map<string, boolean | undefined>();
		if (paths.length === 0) return out;
		const settings = readGitSettings(this.repo);
		const excluded: string[] = [];
		for (const path of paths) {
			const verdict = settings ? this.byRules(path, settings) : undefined;
			out.set(path, verdict);
			if (verdict) excluded.push(path);
		}
		if (excluded.length === 0 || !settings) return out;
		// A tracked file is never ignored, whatever the patterns say.
		const tracked = trackedAmong(join(this.repo.gitDir, "index"), new Set(excluded), settings.hashBytes);
		for (const path of excluded) out.set(path, tracked ? !tracked.has(path) : undefined);
		return out;
	}

	/** Whether the patterns exclude the path (or a folder above it). */
	private byRules(path: string, settings: GitSettings): boolean | undefined {
		const parts = path.split("/");
		for (let i = 1; i <= parts.length; i++) {
			const isDir = i < parts.length;
			const match = this.matchOne(parts.slice(0, i), isDir, settings);
			if (match === undefined) return undefined;
			if (match === "ignored") return true; // a file, or a folder whose whole content is then ignored
		}
		return false;
	}

	/** The first source, in git's precedence, whose patterns match this one path. */
	private matchOne(parts: string[], isDir: boolean, settings: GitSettings): Match | undefined {
		const sources: RuleFile[] = [];
		for (let depth = parts.length - 1; depth >= 0; depth--) {
			const dir = parts.slice(0, depth).join("/");
			const rules = this.load(join(this.repo.root, dir, ".gitignore"), this.repo.root, settings, true);
			if (rules === undefined) return undefined;
			sources.push({ base: dir, rules });
		}
		const exclude = this.load(join(this.repo.commonDir, "info", "exclude"), "/", settings, false);
		const global = settings.excludesFile ? this.load(settings.excludesFile, "/", settings, false) : null;
		if (exclude === undefined || global === undefined) return undefined;
		sources.push({ base: "", rules: exclude }, { base: "", rules: global });
		for (const source of sources) {
			if (!source.rules) continue;
			const depth = source.base ? source.base.split("/").length : 0;
			const rel = parts.slice(depth);
			let result: ReturnType<Ignore["test"]>;
			try {
				result = source.rules.test(rel.join("/") + (isDir ? "/" : ""));
				// The matcher also tests the folders above within this one source; an answer that
				// came from such a folder (which the caller already found not excluded overall,
				// so a more precise source re-included it) is not this path's own answer.
				if (result.ignored)
					for (let k = 1; k < rel.length; k++)
						if (source.rules.test(`${rel.slice(0, k).join("/")}/`).ignored) return undefined;
			} catch {
				return undefined; // a path the matcher refuses
			}
			if (result.ignored) return "ignored";
			if (result.unignored) return "unignored";
		}
		return "none";
	}

	/** A rule file's matcher; null when there is none; undefined when it cannot be read as git would. */
	private load(path: string, root: string, settings: GitSettings, inWorkTree: boolean): Ignore | null | undefined {
		const token = `${fileToken(path)}:${settings.ignoreCase}`;
		const cached = this.files.get(path);
		if (cached?.token === token) return cached.rules;
		let rules: Ignore | null | undefined;
		const st = lstatSync(path, { throwIfNoEntry: false });
		if (!st) rules = null;
		// git does not follow a `.gitignore` that is a symbolic link; rather than copy that, ask git.
		else if (inWorkTree && st.isSymbolicLink()) rules = undefined;
		else {
			const read = readFileInRoot(path, { root, maxBytes: RULES_BYTES, overLimit: "refuse" });
			if (read.state === "missing") rules = null;
			else if (read.state !== "ok") rules = undefined;
			else rules = ignore({ ignorecase: settings.ignoreCase }).add(read.text);
		}
		this.files.set(path, { token, rules });
		return rules;
	}
}
