// `/subagents-watchdog policy off|keep|handsoff`: this session's evidence policy (idle.policy:
// the claims checker, unfinished stops and their nudges; reviews and loops have settings of
// their own), kept in the session (so it survives /reload and resuming it), recorded in
// history, shown in status.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { POLICY_MEANING } from "../evidence/index.ts";
import { type Ctx, SESSION_SETTINGS_ENTRY, type WatchdogSession } from "../session/index.ts";

export const POLICIES = ["off", "keep", "handsoff"] as const;
export type PolicyName = (typeof POLICIES)[number];

export function setPolicy(
	session: WatchdogSession,
	ctx: Ctx & Partial<Pick<ExtensionContext, "sessionManager">>,
	policy: PolicyName,
): string {
	const before = session.policy(ctx);
	session.store.setSessionValue("idle.policy", policy);
	session.persist(SESSION_SETTINGS_ENTRY, { overrides: session.store.getSessionOverrides() });
	session.recordHistory(ctx, {
		kind: "config-change",
		by: "user",
		outcome: "applied",
		change: `/subagents-watchdog policy ${policy} (was ${before})`,
	});
	return `Watchdog policy for this session: ${policy} (was ${before}): ${POLICY_MEANING[policy]}.`;
}
