// Swaps a repository path between inside content and a symlink to an outside one, as fast as
// it can, until SIGTERM; then prints how many swaps it made. Run as a child process, so that it
// races the reviewer's tools truly concurrently.
//   node symlink-swapper.mjs file <repo> <outside-file>   repo/x.txt: regular file <-> link out
//   node symlink-swapper.mjs dir  <repo> <outside-dir>    repo/d: folder holding x.txt <-> link out
import { linkSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [mode, repo, outside] = process.argv.slice(2);
let swaps = 0;
const template = join(repo, ".x.inside");
if (mode === "file") writeFileSync(template, "INSIDE\n");

function swapFile() {
	// Renames replace x.txt atomically, so it always exists as one or the other; each state
	// costs the same (one create, one rename), so both last about as long.
	const target = join(repo, "x.txt");
	linkSync(template, join(repo, ".x.reg"));
	renameSync(join(repo, ".x.reg"), target);
	symlinkSync(outside, join(repo, ".x.lnk"));
	renameSync(join(repo, ".x.lnk"), target);
}

function swapDir() {
	// A folder cannot replace a symlink atomically; d is briefly missing in between.
	const d = join(repo, "d");
	renameSync(d, join(repo, ".d.real"));
	symlinkSync(outside, d);
	unlinkSync(d);
	renameSync(join(repo, ".d.real"), d);
}

const swap = mode === "dir" ? swapDir : swapFile;
process.on("SIGTERM", () => {
	process.stdout.write(`swaps ${swaps}\n`, () => process.exit(0));
});
process.stdout.write("ready\n");
// Batches between event-loop turns, so SIGTERM is heard.
(function batch() {
	for (let i = 0; i < 200; i++) {
		swap();
		swaps++;
	}
	setImmediate(batch);
})();
