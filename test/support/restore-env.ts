// Run before every test file (vitest setupFiles). Test files share a worker process, so what a
// file leaves in process.env (PI_CODING_AGENT_DIR from startSession, PATH, …) is put back
// after it, and the next file starts from the environment the worker began with; the temporary
// folders it made are removed.
import { afterAll } from "vitest";
import { removeTempDirs } from "./temp.ts";

const saved = { ...process.env };

afterAll(() => {
	for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
	Object.assign(process.env, saved);
});

afterAll(removeTempDirs);
