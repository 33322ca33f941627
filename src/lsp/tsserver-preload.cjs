// Loaded first by each Node process of the bundled language server: the server and the tsserver it starts
// (NODE_OPTIONS --require, see server-heap.ts). After a full collection V8 lets the heap grow by a factor it
// picks up to 2 (4 at Node's default heap limit) before the next one, so between checks tsserver's garbage
// piles up to about its live data again. A fixed 1.3 keeps a long session's server near its live size, with
// more frequent but shorter full collections. The heap limit (lsp.serverMemoryMb) is unchanged: a big project
// gets the same room.
const v8 = require("node:v8");
v8.setFlagsFromString("--heap-growing-percent=30");

// The pages a collection frees stay with the process (V8 pools them) until a memory-reducing collection, which
// V8 starts by itself only some 20 s after the work stopped. A server that sits idle most of a session gives
// them back sooner: once tsserver's event loop has been quiet for IDLE_MS, and it holds SLACK more than after
// the last such collection, one (`last-resort`: two full, compacting collections, about half a second of CPU
// on a 300-file project). Never while work is under way (a busy poll starts the wait again), once per idle
// period (an idle process does not grow). A plain gc() would free the heap but keep the pages. Only tsserver:
// the server's own process is small, and it idles while its tsserver works, so a pause there would be one in
// a check.
const POLL_MS = 500;
const IDLE_MS = 2000;
/** Event-loop time within one poll that counts as work (a poll itself takes microseconds). */
const BUSY_MS = 5;
const SLACK = 16 * 1024 * 1024;
if (/(^|[\\/])tsserver\.js$/.test(process.argv[1] ?? "")) collectWhenIdle();

function collectWhenIdle() {
	v8.setFlagsFromString("--expose-gc");
	const gc = require("node:vm").runInNewContext("gc");
	const { performance } = require("node:perf_hooks");
	const rss = () => process.memoryUsage.rss();
	let floor = rss();
	let last = performance.eventLoopUtilization();
	let quiet = 0;
	setInterval(() => {
		const now = performance.eventLoopUtilization();
		quiet = now.active - last.active > BUSY_MS ? 0 : quiet + POLL_MS;
		last = now;
		if (quiet < IDLE_MS || rss() < floor + SLACK) return;
		gc({ type: "major", execution: "sync", flavor: "last-resort" });
		floor = rss();
		last = performance.eventLoopUtilization(); // the collection is not work to wait out
	}, POLL_MS).unref();
}
