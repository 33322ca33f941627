// Loaded first by each Node process of the bundled language server: the server and the tsserver it starts
// (NODE_OPTIONS --require, see server-heap.ts). After a full collection V8 lets the heap grow by a factor it
// picks up to 2 (4 at Node's default heap limit) before the next one, so between checks tsserver's garbage
// piles up to about its live data again; V8 gives those pages back only after some 20 s idle. A fixed 1.3
// keeps a long session's server near its live size, with more frequent but shorter full collections. The heap
// limit (lsp.serverMemoryMb) is unchanged: a big project gets the same room.
require("node:v8").setFlagsFromString("--heap-growing-percent=30");
