// Which server is chosen, on real folders: the bundled one unless a trusted project has its own,
// and PATH only as a last resort, where an untrusted project cannot plant one either.
import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { bundled, locateServer, SERVER_BIN } from "../../../src/lsp/locate.ts";
import { makeGitRepo } from "../../support/git.ts";
import { tempDir } from "../../support/temp.ts";
import { armFakeServer, fakeServerFiles, fakeTypeScriptFiles, REAL_SERVER } from "./repository-code.ts";

const REAL_TYPESCRIPT = dirname(dirname(bundled().typescript?.tsserver as string));

/** A place to resolve the bundled packages from that has our TypeScript but no server. */
function onlyTypeScript(): string {
	const dir = tempDir("pi-watchdog-only-ts-");
	mkdirSync(join(dir, "node_modules"));
	symlinkSync(REAL_TYPESCRIPT, join(dir, "node_modules", "typescript"), "dir");
	return join(dir, "here.js");
}

describe("locateServer", () => {
	it("takes the bundled server, run on this Node, with the bundled TypeScript pinned, in an untrusted project", () => {
		const root = makeGitRepo(fakeServerFiles("/dev/null"));
		armFakeServer(root);
		const found = locateServer(root, false);
		expect(found).toMatchObject({
			from: "bundled",
			path: REAL_SERVER,
			command: process.execPath,
			args: [REAL_SERVER],
			typescript: { option: "path", tsserver: join(REAL_TYPESCRIPT, "lib", "tsserver.js") },
		});
	});

	it("takes a trusted project's own executable server and TypeScript, ours pinned when it has none", () => {
		const root = makeGitRepo({ ...fakeServerFiles("/dev/null"), ...fakeTypeScriptFiles("/dev/null") });
		armFakeServer(root);
		expect(locateServer(root, true)).toMatchObject({
			from: "repository",
			command: join(root, "node_modules/.bin", SERVER_BIN),
			typescript: { option: "fallbackPath" },
		});
		// Without a TypeScript of its own now, ours is pinned: one that a checkout brings before the server
		// starts is never picked up by the server on its own.
		const noTs = makeGitRepo(fakeServerFiles("/dev/null"));
		armFakeServer(noTs);
		expect(locateServer(noTs, true)).toMatchObject({ from: "repository", typescript: { option: "path" } });
		const plain = makeGitRepo();
		expect(locateServer(plain, true)).toMatchObject({ from: "bundled", typescript: { option: "path" } });
	});

	it("looks on PATH only in absolute folders, and in an untrusted project not in folders inside it", () => {
		const root = makeGitRepo(fakeServerFiles("/dev/null"));
		armFakeServer(root);
		const planted = join(root, "node_modules/.bin");
		const elsewhere = resolve("node_modules/.bin");
		// "node_modules/.bin" is relative: it would find a server next to wherever Pi runs.
		const pathEnv = ["node_modules/.bin", ".", planted, elsewhere].join(":");
		const bundledFrom = onlyTypeScript();
		expect(locateServer(root, false, { pathEnv, bundledFrom })).toMatchObject({
			from: "PATH",
			path: join(elsewhere, SERVER_BIN),
			why: "the bundled server could not be found; the project is not trusted, so its own node_modules/.bin server is not used",
		});
		expect(
			locateServer(makeGitRepo(), true, { pathEnv: [".", planted, elsewhere].join(":"), bundledFrom }),
		).toMatchObject({ from: "PATH", path: join(planted, SERVER_BIN) });
	});
});
