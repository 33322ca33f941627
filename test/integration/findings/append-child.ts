// A separate Pi-like process appending to the history log, for the concurrency tests:
// `append-child.ts <dir> <tag> <count> <maxBytes> <startAtMs>`. Waits for the shared start time
// so both children append at once; prints how many appends failed.
import { appendHistory } from "../../../src/findings/history-log.ts";

const [dir, tag, count, maxBytes, startAt] = process.argv.slice(2);
while (Date.now() < Number(startAt)) {
	// spin: a timer would let the other child start first
}
let failed = 0;
const errors = new Set<string>();
for (let i = 0; i < Number(count); i++) {
	const result = appendHistory(
		dir,
		{
			kind: "finding",
			session: tag,
			cwd: "/repo",
			source: "main",
			importance: "high",
			severity: "concern",
			summary: `${tag} ${i}`,
			evidence: "x".repeat(40 + (i % 200)),
			fate: "shown to you",
		},
		{ maxBytes: Number(maxBytes) },
	);
	if (!result.ok) {
		failed++;
		errors.add(result.error);
	}
}
console.log(JSON.stringify({ failed, errors: [...errors] }));
