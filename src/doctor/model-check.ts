// The reviewer model checked against Pi's own model registry (auth.json, models.json), as a
// session would, without a network request. Imported only on a Node that can run Pi.
import { ModelRegistry, ModelRuntime } from "@earendil-works/pi-coding-agent";
import { join } from "node:path";
import { type CheckResult, checkReviewer, type ReviewerChoice } from "../models/index.ts";

export async function reviewerCheck(agentDir: string, choice: ReviewerChoice): Promise<CheckResult> {
	const runtime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: join(agentDir, "models.json"),
		allowModelNetwork: false,
		refreshOnCreate: false,
	});
	await runtime.refresh({ allowNetwork: false });
	return checkReviewer(new ModelRegistry(runtime), choice);
}
