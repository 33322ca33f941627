// Which watchdog a session's is (the main one, or a child's with the channel to its parent),
// and what it needs of Pi to act: the host.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ParentChannel } from "../findings/index.ts";
import type { TrustSnapshot } from "../host/index.ts";
import type { Thinking } from "../models/index.ts";
import type { PermissionPolicy, UserAllowances } from "../permissions/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import type { Lineage, TreeSlots } from "./lineage.ts";
import type { ToolCallCheck } from "./monitor.ts";

/** Which watchdog this is: the main session's, or a child's with the channel to its parent. */
export interface WatchdogOptions {
	role: string;
	parent?: ParentChannel;
	/** Checks that may refuse a tool call (the permission gate): asked first, before anything slow. */
	toolCallChecks?: ToolCallCheck[];
	/** A child's settings: the parent's effective ones (seen through `children.*` here). */
	parentSettings?: () => ResolvedSettings;
	/** A child's launch id, for its history lines. */
	runId?: string;
	/** A child's tool permissions (resolved at launch); a gate is installed only when they can ask or deny. */
	permissions?: PermissionPolicy;
	/** A child's task, which the permission arbiter is shown. */
	task?: string;
	project?: string; // a child's: the parent's folder (its history lines and its reviewer's root)
	trust?: TrustSnapshot; // a child's: its trust in the files of the folder it works in (judged at launch)
	/** A child's place in the tree (depth, path, limits); the main session's comes from the environment. */
	lineage?: Lineage;
	/** The tree's concurrency budget, shared by every descendant in this process; the main session makes it. */
	slots?: TreeSlots;
	/** A child's own slot, lent to its children while it waits on a foreground launch. */
	lendSlot?: () => { take(signal?: AbortSignal): Promise<void> } | undefined;
	/** The tree's denied asks the user may allow once (the main session makes the book). */
	allowances?: UserAllowances;
}

export interface WatchdogHost {
	/** Persists data in the session (Pi's `appendEntry`); never sent to the model. */
	appendEntry(customType: string, data: unknown): void;
	/** Steers a message into the running agent (Pi's `sendMessage` with `deliverAs: "steer"`). */
	steer(message: { customType: string; content: string | unknown[]; display: boolean; details?: unknown }): void;
	/** Pi's `sendMessage` with `triggerTurn`: when the agent is idle, starts a run that answers it. */
	wake?(message: { customType: string; content: string | unknown[]; display: boolean; details?: unknown }): void;
	post?(message: Parameters<WatchdogHost["steer"]>[0]): void; // Pi's `sendMessage` with no options: starts nothing
	/** Pi's `setModel` for this session (rotation); false when Pi has no credentials for it. */
	setModel?(model: NonNullable<ExtensionContext["model"]>): Promise<boolean>;
	/** Pi's `setThinkingLevel` (a rotation target given with its level). */
	setThinkingLevel?(level: Thinking): void;
	/** Pi's `getFlag`: the value of a flag this extension registered (`--watchdog-strict`). */
	flag?(name: string): unknown;
}
