// Parsing `git status --porcelain=v2 -z --branch --untracked-files=all`: the HEAD commit and
// the paths that differ from it. Pure.

export interface PorcelainStatus {
	/** HEAD's commit, or null on an unborn branch. */
	head: string | null;
	/** Paths (relative to the work tree root) that are modified, added, deleted or untracked. */
	paths: string[];
}

export function parsePorcelainV2(output: string): PorcelainStatus {
	const records = output.split("\0");
	let head: string | null = null;
	const paths: string[] = [];
	for (let i = 0; i < records.length; i++) {
		const rec = records[i];
		if (!rec) continue;
		switch (rec[0]) {
			case "#": {
				const m = /^# branch\.oid (\S+)/.exec(rec);
				if (m) head = m[1] === "(initial)" ? null : m[1];
				break;
			}
			case "1":
				paths.push(afterFields(rec, 8));
				break;
			case "2":
				// A rename: the new path, then the original path as the next record.
				paths.push(afterFields(rec, 9));
				if (records[i + 1]) paths.push(records[++i]);
				break;
			case "u":
				paths.push(afterFields(rec, 10));
				break;
			case "?":
				paths.push(rec.slice(2));
				break;
			default:
				break; // "!" (ignored) is never asked for
		}
	}
	return { head, paths };
}

/** The text after the first `n` space-separated fields (a path may itself hold spaces). */
function afterFields(record: string, n: number): string {
	let at = 0;
	for (let k = 0; k < n; k++) {
		at = record.indexOf(" ", at) + 1;
		if (at === 0) return "";
	}
	return record.slice(at);
}
