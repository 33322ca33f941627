import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// Each file gets its own process: tests point PI_CODING_AGENT_DIR at temp folders.
		pool: "forks",
		testTimeout: 60_000,
		hookTimeout: 60_000,
	},
});
