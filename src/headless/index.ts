// The watchdog in CI and scripts: strict exit codes, the run report, print mode's bounded wait.
// Other folders import from here; files inside the folder import each other directly.
export { registerHeadlessFlags } from "./flags.ts";
export { Headless, type HeadlessDeps, REPORT_FLAG, STRICT_EXIT_CODE, STRICT_FLAG } from "./headless.ts";
export { type Blocker, HeadlessLedger, type SettleSeen } from "./ledger.ts";
export { buildReport, REPORT_SCHEMA } from "./report.ts";
export { checkReportPath, writeReport } from "./report-file.ts";
