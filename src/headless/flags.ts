// The command-line flags of a headless run, registered by the main session's extension. Pi
// parses them before extensions load: a boolean flag followed by a word takes that word as its
// value, so `--watchdog-strict` goes before another flag, last, or as `--watchdog-strict=true`.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { REPORT_FLAG, STRICT_FLAG } from "./headless.ts";

export function registerHeadlessFlags(pi: Pick<ExtensionAPI, "registerFlag">): void {
	pi.registerFlag(STRICT_FLAG, {
		description: `Print/RPC mode: exit 3 when the run ends with an open watchdog blocker (setting headless.strict)`,
		type: "boolean",
		default: false,
	});
	pi.registerFlag(REPORT_FLAG, {
		description: "Write the watchdog's JSON report of the run to this file at exit (schema in docs/ci.md)",
		type: "string",
	});
}
