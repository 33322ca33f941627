// WATCHDOG.md: standing instructions for the reviewer, read fresh for each review. The
// project's file (only in a trusted project) comes first, then the user's. Both are read
// through safe-file: a link out of their folder, a FIFO or a device is skipped with a reason,
// and only the start of a huge file is read. Combining them within the budget is pure.
import { join } from "node:path";
import { type FileTrust, readState } from "../host/index.ts";
import { readFileInRoot, userRoot } from "../util/index.ts";
import { capText } from "../util/index.ts";

export const GUIDANCE_FILE = "WATCHDOG.md";
/** Enough bytes for the character budget below, even in multi-byte scripts. */
export const GUIDANCE_READ_BYTES = 32 * 1024;

export interface GuidanceFile {
	source: "project" | "user";
	path: string;
	text: string;
}

export interface GuidanceRead {
	files: GuidanceFile[];
	/** Why a file that is there was not used (shown in status and to the user). */
	skipped: string[];
}

export function readGuidance(options: {
	cwd: string;
	configDirName: string;
	agentDir: string;
	trusted: boolean;
	trust?: FileTrust;
}): GuidanceRead {
	const files: GuidanceFile[] = [];
	const skipped: string[] = [];
	const sources: Array<{ source: GuidanceFile["source"]; path: string; root: string }> = [];
	// An untrusted project's instructions would let the repository steer its own reviewer.
	const projectPath = join(options.cwd, options.configDirName, GUIDANCE_FILE);
	if (options.trusted && (options.trust?.mayOpen(projectPath) ?? true))
		sources.push({ source: "project", path: projectPath, root: options.cwd });
	sources.push({ source: "user", path: join(options.agentDir, GUIDANCE_FILE), root: userRoot(options.agentDir) });
	for (const { source, path, root } of sources) {
		const read = readFileInRoot(path, { root, maxBytes: GUIDANCE_READ_BYTES, overLimit: "truncate" });
		// Only the content there when you decided to trust the project (trust-snapshot.ts); the rest is held back.
		if (
			source === "project" &&
			options.trust &&
			read.state !== "missing" &&
			!options.trust.allows(path, readState(read))
		)
			continue;
		if (read.state === "refused") skipped.push(read.reason);
		else if (read.state === "ok" && read.text.trim()) files.push({ source, path, text: read.text.trim() });
	}
	return { files, skipped };
}

/**
 * The files as one text of at most `max` characters, the project's first. The user's own
 * file keeps at least half of the room whatever the project's holds.
 */
export function combineGuidance(files: GuidanceFile[], max: number): string {
	const blocks = files.map((f) => ({ source: f.source, text: `(${f.source}: ${f.path})\n${f.text}` }));
	const user = blocks.find((b) => b.source === "user");
	const project = blocks.find((b) => b.source === "project");
	if (!user || !project) return blocks.length ? capText(blocks[0].text, max) : "";
	const gap = 2;
	const userRoom = Math.min(user.text.length, Math.max(Math.floor(max / 2), max - gap - project.text.length));
	return `${capText(project.text, max - gap - userRoom)}\n\n${capText(user.text, userRoom)}`;
}
