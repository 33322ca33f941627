// Calls one of the reviewer's tools by name, as the review loop will.
import { createReviewerReadTools } from "../../src/review/tools/reviewer-tools.ts";
import type { ReviewerToolOptions, ReviewerToolResult } from "../../src/review/tools/types.ts";

export type RunTool = (name: string, args: unknown, signal?: AbortSignal) => Promise<ReviewerToolResult>;

export function toolsIn(root: string, options: Omit<ReviewerToolOptions, "root"> = {}): RunTool {
	const tools = createReviewerReadTools({ root, ...options });
	return async (name, args, signal = new AbortController().signal) => {
		const tool = tools.find((t) => t.name === name);
		if (!tool) throw new Error(`no tool ${name}; have ${tools.map((t) => t.name).join(", ")}`);
		return tool.execute(args, signal);
	};
}
