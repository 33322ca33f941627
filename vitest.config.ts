import { defineConfig } from "vitest/config";

// Two projects: `unit` (pure cores: no Pi session, no git, no `pi` CLI, no language server) and
// `integration` (the real Pi runtime, the real `pi` CLI, real git repositories and tsserver).
// `npm run test:unit` and `npm run test:integration` run one each; `npm test` runs both.
export default defineConfig({
	test: {
		// Each file gets its own process: tests point PI_CODING_AGENT_DIR at temp folders.
		pool: "forks",
		testTimeout: 60_000,
		hookTimeout: 60_000,
		projects: [
			{ extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
			{ extends: true, test: { name: "integration", include: ["test/integration/**/*.test.ts"] } },
		],
	},
});
