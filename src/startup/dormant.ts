// Whether the main session's watchdog may stay unloaded at start: only when nothing it would do
// at start can depend on it. Cheap on purpose (a stat or two and one small read, no schema): this
// runs on every start of Pi. Any doubt answers false, and the watchdog loads as it always did.
// The file is read here with the bounded reader and JSON.parse alone: a file that does not parse
// loads the watchdog, whose reader (settings/files.ts) says where the error is.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { STRICT_FLAG, REPORT_FLAG } from "../headless/index.ts";
import { hostEnv } from "../host/index.ts";
import { SESSION_SETTINGS_ENTRY } from "../session/index.ts";
import { findProjectSettings, masterSwitchOff, SETTINGS_MAX_BYTES } from "../settings/index.ts";
import { readFileInRoot, stripBom, userRoot } from "../util/index.ts";

export interface DormantInput {
	agentDir: string;
	configDirName: string;
	cwd: string;
	/** The session's branch (a resumed session may hold `session on`). */
	entries: ReadonlyArray<{ type: string; customType?: string }>;
	/** Pi's `getFlag` for this extension's flags. */
	flag(name: string): unknown;
	env?: NodeJS.ProcessEnv;
}

export function startsDormant(input: DormantInput): boolean {
	const env = input.env ?? process.env;
	// A headless run's flags, a background child's lineage, and an environment to warn about need the watchdog.
	if (input.flag(STRICT_FLAG) === true || input.flag(REPORT_FLAG) !== undefined) return false;
	if (hostEnv("SUBAGENT_LINEAGE", env) !== undefined || env.PI_SUBAGENT_MAX_DEPTH !== undefined) return false;
	if (input.entries.some((e) => e.type === "custom" && e.customType === SESSION_SETTINGS_ENTRY)) return false;
	// A project's file may turn the watchdog on; whether it may be read at all (trust) is the watchdog's question.
	if (present(findProjectSettings(input.cwd, input.configDirName).path)) return false;
	const path = join(input.agentDir, "settings.json");
	const file = readFileInRoot(path, {
		root: userRoot(input.agentDir),
		maxBytes: SETTINGS_MAX_BYTES,
		overLimit: "refuse",
		hash: false,
	});
	if (file.state === "missing") return true;
	if (file.state !== "ok") return false;
	try {
		return masterSwitchOff(JSON.parse(stripBom(file.text)));
	} catch {
		return false; // the watchdog's own reading says what is wrong with the file
	}
}

function present(path: string): boolean {
	try {
		return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
	} catch {
		return true;
	}
}
