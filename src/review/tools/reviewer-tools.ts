// The reviewer's read-only tools, all confined to the repository root.
import { createGitRunner, type GitRunner } from "../../git/index.ts";
import { createDiffTool, isCommitId } from "./diff-tool.ts";
import { createFindTool } from "./find-tool.ts";
import { createGrepTool } from "./grep-tool.ts";
import { createLsTool } from "./ls-tool.ts";
import { createReadTool } from "./read-tool.ts";
import { DEFAULT_MAX_OUTPUT_CHARS, fail, type ReviewerTool, type ReviewerToolOptions } from "./types.ts";

const DEFAULT_REGEX_TIMEOUT_MS = 5_000;
/** Below this the notes about truncation would crowd out the content. */
const MIN_OUTPUT_CHARS = 2_000;

export function createReviewerReadTools(options: ReviewerToolOptions): ReviewerTool[] {
	const { root } = options;
	const max = Math.max(MIN_OUTPUT_CHARS, options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
	const tools = [
		createReadTool(root, max),
		createLsTool(root, max),
		createFindTool(root, max),
		createGrepTool(root, max, options.regexTimeoutMs ?? DEFAULT_REGEX_TIMEOUT_MS),
	];
	if (isCommitId(options.baseline)) {
		const git: GitRunner = options.git ?? createGitRunner(root);
		tools.push(createDiffTool(root, git, options.baseline, max));
	}
	return tools.map(neverThrows);
}

/** The promise every tool makes: whatever happens, a result the model can read. */
function neverThrows(tool: ReviewerTool): ReviewerTool {
	return {
		...tool,
		async execute(args, signal) {
			if (signal.aborted) return fail(`${tool.name}: cancelled before it started.`);
			try {
				return await tool.execute(args, signal);
			} catch (error) {
				const message = error instanceof Error ? error.message : String(error);
				return fail(`${tool.name} failed unexpectedly: ${message}`);
			}
		},
	};
}
