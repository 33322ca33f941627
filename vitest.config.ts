import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Two projects: `unit` (pure cores: no Pi session, no git, no `pi` CLI, no language server) and
// `integration` (the real Pi runtime, the real `pi` CLI, real git repositories and tsserver).
// `npm run test:unit` and `npm run test:integration` run one each; `npm test` runs both.
export default defineConfig({
	test: {
		// Each file gets its own process: tests point PI_CODING_AGENT_DIR at temp folders.
		pool: "forks",
		// vitest's default is one worker fewer than the cores: a single worker on a 2-core machine.
		// Integration files mostly wait on other processes (pi, git, tsserver), so two overlap well.
		maxWorkers: Math.max(2, availableParallelism() - 1),
		testTimeout: 60_000,
		hookTimeout: 60_000,
		projects: [
			// Unit files share their worker's module cache (isolate: false): most of a unit file's time
			// was importing Pi's packages again. They change no process state (env, cwd, timers)
			// that the next file would see; a test that must, belongs in integration.
			{ extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"], isolate: false } },
			{ extends: true, test: { name: "integration", include: ["test/integration/**/*.test.ts"] } },
		],
	},
});
