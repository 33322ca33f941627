// `watchdog_diff`: everything that changed since the session started: the working tree
// against the session-start commit (so later commits count too), plus untracked files,
// which git diff does not show.
import { Type } from "typebox";
import type { GitRunner } from "../../git/index.ts";
import { parseArgs } from "./args.ts";
import { confinePath } from "./confine.ts";
import { capText, fitLines, plural } from "./output.ts";
import { fail, ok, type ReviewerTool } from "./types.ts";

const UNTRACKED_MAX = 200;

/** Only a plain commit id is accepted: it goes on git's command line. */
export function isCommitId(value: unknown): value is string {
	return typeof value === "string" && /^[0-9a-f]{7,64}$/i.test(value);
}

const DIFF_PARAMS = Type.Object({
	path: Type.Optional(
		Type.String({ description: "File or folder, relative to the repository root. Default: everything." }),
	),
	stat: Type.Optional(
		Type.Boolean({ description: "List changed files with line counts instead of the full diff. Default false." }),
	),
});

export function createDiffTool(root: string, git: GitRunner, baseline: string, maxOutputChars: number): ReviewerTool {
	const short = baseline.slice(0, 12);
	return {
		name: "watchdog_diff",
		description: [
			"Show what changed in the repository since this session started: the working " +
				"tree against the session-start commit",
			'(later commits included) and the untracked files. "stat": true lists changed ' +
				'files only; "path" limits it to a file or folder.',
		].join(" "),
		parameters: DIFF_PARAMS,
		async execute(args, signal) {
			const parsed = parseArgs("watchdog_diff", args, DIFF_PARAMS);
			if (!parsed.ok) return fail(parsed.error);
			// A missing path is fine here: it may be a file deleted since the session started.
			const place = confinePath(root, parsed.values.path ?? "");
			if (!place.ok) return fail(`watchdog_diff: ${place.error}.`);
			// `:(literal)` keeps git from reading pathspec magic (such as `:/`) in the path.
			const pathspec = literalPathspec(place.rel === "" ? [] : [place.rel]);
			const stat = parsed.values.stat === true;

			const read = await readChange(git, baseline, pathspec, stat, { signal });
			if (!read.ok) return fail(`watchdog_diff: ${read.error}`);
			const { diff, untracked } = read;
			const scope = place.rel === "" ? "" : ` in ${place.rel}`;
			if (diff.trim() === "" && untracked.length === 0)
				return ok(`No changes${scope} since the session started (commit ${short}).`);

			let untrackedPart = "";
			if (untracked.length > 0) {
				const listed = fitLines(untracked.slice(0, UNTRACKED_MAX), Math.floor(maxOutputChars / 4));
				const left = untracked.length - listed.shown;
				untrackedPart = [
					`Untracked files${scope} (new, not in the diff above; use read to see them):`,
					listed.text,
					...(left > 0 ? [`[truncated: ${plural(left, "more untracked file")}; give "path" to list a folder's]`] : []),
				].join("\n");
			}
			const heading = `Changes${scope} since the session started (commit ${short}), working tree included:`;
			const diffText = diff.trim() === "" ? "(no changes to tracked files)" : diff.replace(/\n$/, "");
			const room = maxOutputChars - heading.length - untrackedPart.length - 10;
			const cappedDiff = capText(diffText, room, (shown, total) =>
				stat
					? `[truncated: showed ${shown} of ${total} characters of the summary; give "path" to look at one folder]`
					: `[truncated: showed ${shown} of ${total} characters of the diff; call with "stat": ` +
						`true to list the changed files, then with "path" for one file or folder]`,
			);
			return ok([heading, cappedDiff, ...(untrackedPart ? ["", untrackedPart] : [])].join("\n"));
		},
	};
}

/** Pathspecs git reads literally (no `:/` or glob magic), for paths relative to the root. */
export function literalPathspec(paths: readonly string[]): string[] {
	return paths.length ? ["--", ...paths.map((p) => `:(literal)${p}`)] : [];
}

export type ChangeRead = { ok: true; diff: string; untracked: string[] } | { ok: false; error: string };

/**
 * What changed since `baseline`: the tracked files' diff (or its stat) and the untracked paths,
 * limited by `pathspec`. Shared by `watchdog_diff` and the reviewer's input, so both show the same change.
 */
export async function readChange(
	git: GitRunner,
	baseline: string,
	pathspec: readonly string[],
	stat: boolean,
	options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<ChangeRead> {
	// diff-index, not diff: `git diff` refreshes and rewrites the index (taking index.lock even
	// with --no-optional-locks), which could make the agent's own git commands fail.
	// --relative: paths relative to the root, and nothing from outside it if the root is a subfolder.
	const diffArgs = [
		"--no-optional-locks",
		"diff-index",
		"--no-color",
		"--no-ext-diff",
		"--no-textconv",
		"-M",
		"--relative",
		stat ? "--stat=200" : "-p",
		baseline,
		...pathspec,
	];
	const diff = await git.run(diffArgs, options);
	if (!diff.ok)
		return {
			ok: false,
			error: `git diff against the session-start commit ${baseline.slice(0, 12)} failed: ${diff.error}`,
		};
	const others = await git.run(
		["--no-optional-locks", "ls-files", "--others", "--exclude-standard", "-z", ...pathspec],
		options,
	);
	if (!others.ok) return { ok: false, error: `listing untracked files failed: ${others.error}` };
	return { ok: true, diff: diff.stdout, untracked: others.stdout.split("\0").filter((p) => p !== "") };
}
