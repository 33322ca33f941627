import { availableParallelism } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

// The integration tests start well over a hundred Node processes (`pi`, background runners), each
// compiling the same Pi modules: V8's code cache on disk (Node's own, keyed by its version) saves
// about a tenth of each start's CPU. The workers and every process they start inherit it.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, "node_modules", ".cache", "node-compile-cache");

// Two projects: `unit` (pure cores: no Pi session, no git, no `pi` CLI, no language server) and
// `integration` (the real Pi runtime, the real `pi` CLI, real git repositories and tsserver).
// `npm run test:unit` and `npm run test:integration` run one each; `npm test` runs both.
export default defineConfig({
	test: {
		pool: "forks",
		// Test files share their worker process and its module cache (isolate: false): importing
		// Pi's packages again for each file was most of the suite's CPU time. What a file leaves in
		// process.env is put back after it (restore-env.ts); tests set up their own temp folders.
		isolate: false,
		setupFiles: ["test/support/restore-env.ts"],
		// vitest's default is one worker fewer than the cores: a single worker on a 2-core machine.
		// Integration files mostly wait on other processes (pi, git, tsserver), so two overlap well.
		maxWorkers: Math.max(2, availableParallelism() - 1),
		testTimeout: 60_000,
		hookTimeout: 60_000,
		projects: [
			{ extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
			{ extends: true, test: { name: "integration", include: ["test/integration/**/*.test.ts"] } },
		],
	},
});
