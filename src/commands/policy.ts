// `/subagents-watchdog policy off|keep|handsoff`: this session's evidence policy, kept in the
// session (so it survives /reload and resuming it), recorded in history, shown in status.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type Ctx, SESSION_SETTINGS_ENTRY, type WatchdogSession } from "../session/index.ts";

export const POLICIES = ["off", "keep", "handsoff"] as const;
export type PolicyName = (typeof POLICIES)[number];

const MEANING: Record<PolicyName, string> = {
	off: "no claim checks, no unfinished-stop detection and no model rotation in this session (reviews and loops go on)",
	keep: "findings and nudges are delivered as usual",
	handsoff: "everything is detected and shown to you; nothing is delivered to the agent, no nudge is sent and the model is never rotated",
};

export function setPolicy(session: WatchdogSession, ctx: Ctx & Partial<Pick<ExtensionContext, "sessionManager">>, policy: PolicyName): string {
	const before = session.settings(ctx).settings.idle.policy;
	session.store.setSessionValue("idle.policy", policy);
	session.host.appendEntry(SESSION_SETTINGS_ENTRY, { overrides: session.store.getSessionOverrides() });
	session.recordHistory(ctx, { kind: "config-change", by: "user", outcome: "applied", change: `/subagents-watchdog policy ${policy} (was ${before})` });
	return `Watchdog policy for this session: ${policy} (was ${before}): ${MEANING[policy]}.`;
}
